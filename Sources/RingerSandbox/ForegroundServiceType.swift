/// A foreground service type a calling app uses (Android 14: `android:foregroundServiceType`, passed to
/// `Service.startForeground(id, notification, type)`), with the permission Android 14 requires for it.
public enum ForegroundServiceType: String, Sendable, Hashable, CaseIterable, Codable {
    /// `phoneCall` (`FOREGROUND_SERVICE_TYPE_PHONE_CALL`): an ongoing call through the ConnectionService
    /// APIs; needs `MANAGE_OWN_CALLS` (or the default-dialer role).
    case phoneCall
    /// `microphone` (`FOREGROUND_SERVICE_TYPE_MICROPHONE`): the call's audio capture; needs `RECORD_AUDIO`.
    case microphone

    /// The permission Android 14 checks when a service of this type starts.
    public var requiredPermission: AndroidPermission {
        switch self {
        case .phoneCall: .manageOwnCalls
        case .microphone: .recordAudio
        }
    }
}
