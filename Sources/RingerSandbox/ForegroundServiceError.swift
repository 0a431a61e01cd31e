/// What `startForeground` throws on Android 14, named after Android's exceptions. The simulated app catches
/// it and ends the call cleanly; on a real phone an uncaught one crashes the app.
public struct ForegroundServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable { case securityException, startNotAllowed }

    private let code: Code
    /// What was refused, as Android's message would say it.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// `SecurityException`: the service type's permission is not granted (Android 14: "Starting FGS with type
    /// … requires permissions").
    /// - Parameter type: the refused type.
    public static func securityException(_ type: ForegroundServiceType) -> ForegroundServiceError {
        ForegroundServiceError(
            .securityException,
            "SecurityException: starting a foreground service of type \(type.rawValue) "
                + "requires \(type.requiredPermission.name)")
    }

    /// `ForegroundServiceStartNotAllowedException` (Android 12+): the app is in the background and no exemption
    /// applies (Android: "Restrictions on starting a foreground service from the background").
    public static let startNotAllowed = ForegroundServiceError(
        .startNotAllowed,
        "ForegroundServiceStartNotAllowedException: the app is in the background and no exemption applies")

    /// True for ``securityException(_:)``.
    public var isSecurityException: Bool { code == .securityException }

    public var description: String { detail }
}
