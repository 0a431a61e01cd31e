import RingerSupport

/// The calling app's foreground service, under Android 14's rules (Android: "Foreground service types",
/// "Restrictions on starting a foreground service from the background"):
///
/// - Each type needs its permission (``ForegroundServiceType/requiredPermission``), or the start throws
///   ``ForegroundServiceError/securityException(_:)``.
/// - An app that is not in the foreground may start one only with an exemption: a user action on its
///   notification or call UI, or a high-priority FCM message being handled; otherwise the start throws
///   ``ForegroundServiceError/startNotAllowed``. A running service may add types (the call's `microphone`
///   once it is active).
/// - While it runs, Android keeps the app's process running in the background (not frozen, not killed
///   when the task is swiped away).
///
/// Thread-safe.
public final class SimulatedForegroundService: Sendable {
    /// Where a start comes from, which decides whether Android allows it.
    public enum Origin: String, Sendable, Hashable {
        /// The app is in the foreground.
        case appInForeground
        /// The user acted on the app's notification or call (answer, dial): exempt.
        case userAction
        /// While a high-priority FCM message is handled: exempt (a message delivered at normal priority, or
        /// demoted to it, is not).
        case highPriorityMessage
        /// The app is in the background with no exemption.
        case background
    }

    /// Something the service did, in order.
    public enum Change: Sendable, Hashable {
        /// Started, or changed its types, to this set.
        case started(Set<ForegroundServiceType>)
        /// A start was refused with this error; the service kept its previous types.
        case refused(ForegroundServiceError)
        /// Stopped (`stopForeground`, `stopSelf`).
        case stopped
    }

    private struct State {
        var types: Set<ForegroundServiceType> = []
        var changes: [Change] = []
    }

    private let state = LockedValue(State())

    /// Creates a stopped service.
    public init() {}

    /// The running types; empty when stopped.
    public var types: Set<ForegroundServiceType> { state.withLock { $0.types } }

    /// True while it runs.
    public var isRunning: Bool { !types.isEmpty }

    /// Every start, refusal and stop so far.
    public var changes: [Change] { state.withLock { $0.changes } }

    /// `startForeground` with `types` added to the running ones.
    /// - Parameters:
    ///   - types: the types to hold from now on (added to those running).
    ///   - permissions: the app's granted permissions.
    ///   - origin: where the start comes from.
    /// - Throws: ``ForegroundServiceError/startNotAllowed`` for a background start without exemption while
    ///   the service is stopped; ``ForegroundServiceError/securityException(_:)`` for a type whose permission
    ///   is not granted. A refusal changes nothing.
    public func start(_ types: Set<ForegroundServiceType>, permissions: Set<AndroidPermission>, origin: Origin) throws {
        try state.withLock { state in
            do {
                if state.types.isEmpty, origin == .background { throw ForegroundServiceError.startNotAllowed }
                for type in types.sorted(by: { $0.rawValue > $1.rawValue })
                where !permissions.contains(type.requiredPermission) {
                    throw ForegroundServiceError.securityException(type)
                }
            } catch let error as ForegroundServiceError {
                state.changes.append(.refused(error))
                throw error
            }
            state.types.formUnion(types)
            state.changes.append(.started(state.types))
        }
    }

    /// Stops the service (nothing when it is not running).
    public func stop() {
        state.withLock { state in
            guard !state.types.isEmpty else { return }
            state.types = []
            state.changes.append(.stopped)
        }
    }
}
