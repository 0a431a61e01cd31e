// A test-only mirror of the UserNotifications declarations RingerKitApple uses, so its readiness check
// type-checks and runs on Linux. Names, labels, raw values and `@Sendable` follow Apple's SDK
// (`UNUserNotificationCenter.h`, `UNNotificationSettings.h`; developer.apple.com/documentation/usernotifications);
// this is not the real framework. Compiled in Swift 5 mode, as Apple's Objective-C frameworks are imported as
// pre-concurrency modules. Members named `mirror…` are not Apple API: they play the user's part in Settings.

import Dispatch
import Foundation

/// Mirror of `UNAuthorizationStatus` (`NS_ENUM(NSInteger)`, values as in `UNNotificationSettings.h`).
public enum UNAuthorizationStatus: Int, @unchecked Sendable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// The user refused, or turned notifications off in Settings.
    case denied = 1
    /// The user allowed notifications.
    case authorized = 2
    /// Delivered quietly to Notification Center without asking first (iOS 12+).
    case provisional = 3
    /// Allowed for a limited time (App Clips, iOS 14+).
    case ephemeral = 4
}

/// Mirror of `UNNotificationSettings`. Apps never create one; the center hands it over.
open class UNNotificationSettings: NSObject {
    /// Whether the app may schedule or receive user notifications.
    open private(set) var authorizationStatus: UNAuthorizationStatus

    init(authorizationStatus: UNAuthorizationStatus) {
        self.authorizationStatus = authorizationStatus
    }
}

/// Mirror of `UNUserNotificationCenter`. Only the shared center exists, as in the SDK (`init` is unavailable
/// there).
open class UNUserNotificationCenter: NSObject {
    private static let shared = UNUserNotificationCenter()
    private let lock = NSLock()
    private var status = UNAuthorizationStatus.notDetermined
    /// The background queue the completion handlers run on, one after another in request order.
    private let queue = DispatchQueue(label: "mirror.usernotifications")

    override private init() { super.init() }

    /// The app's notification center (Apple: `class func current() -> UNUserNotificationCenter`).
    open class func current() -> UNUserNotificationCenter { shared }

    /// Hands the app's current notification settings to `completionHandler`, later and on a background thread,
    /// as the SDK does. The mirror reads the status when it answers, not when asked.
    open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        queue.async { [self] in
            completionHandler(UNNotificationSettings(authorizationStatus: mirrorAuthorizationStatus))
        }
    }

    // MARK: Mirror-only: the user's side (not Apple API)

    /// The status the next `getNotificationSettings(completionHandler:)` answers; `.notDetermined` (a fresh
    /// install) until a test sets it, as the user would by answering the prompt or in Settings. Process-wide,
    /// like the center: tests that set it must not run in parallel with each other.
    public var mirrorAuthorizationStatus: UNAuthorizationStatus {
        get { lock.withLock { status } }
        set { lock.withLock { status = newValue } }
    }
}
