// A test-only mirror of the UIKit declarations @ringer/react-native's iOS half uses (react-native/ios), so they
// type-check and run on Linux. Names, labels, optionality and main-actor isolation follow Apple's SDK
// (`UIApplication.h`, `UIResponder.h`, `UIUserActivity.h`; developer.apple.com/documentation/uikit): `UIResponder` and
// `UIApplicationDelegate` are `@MainActor` there. Compiled in Swift 5 mode, as Apple's Objective-C frameworks are
// imported as pre-concurrency modules. Members named `mirror…` are not Apple API: they record what the app did.

import Foundation
import Intents

/// Mirror of `UIUserActivityRestoring` (`UIUserActivity.h`): what an app's continuation hands back to restore state.
@MainActor
public protocol UIUserActivityRestoring: NSObjectProtocol {
    func restoreUserActivityState(_ userActivity: NSUserActivity)
}

/// Mirror of `UIResponder`, which adopts `UIUserActivityRestoring` in the SDK.
@MainActor
open class UIResponder: NSObject, UIUserActivityRestoring {
    public override init() { super.init() }
    open func restoreUserActivityState(_ userActivity: NSUserActivity) {}
}

/// Mirror of `UIBackgroundFetchResult` (`NS_ENUM(NSUInteger)`, values as in `UIApplication.h`).
public enum UIBackgroundFetchResult: UInt, @unchecked Sendable {
    case newData = 0
    case noData = 1
    case failed = 2
}

/// Mirror of `UIApplication`. Only the shared instance exists, as in the SDK.
@MainActor
open class UIApplication: UIResponder {
    /// Mirror of `UIApplication.LaunchOptionsKey` (`NS_TYPED_ENUM` over `NSString`).
    public struct LaunchOptionsKey: Hashable, RawRepresentable, @unchecked Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// Mirror of `UIApplication.OpenExternalURLOptionsKey`.
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, @unchecked Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    private static let instance = UIApplication()
    private var registrations = 0
    private var opened: [URL] = []

    override private init() { super.init() }

    /// The app's instance (Apple: `class var shared: UIApplication`).
    open class var shared: UIApplication { instance }

    /// Apple: "Used to create a URL that you pass to the openURL: method. When you open the URL built from this
    /// string, the system launches the Settings app and displays the app's custom settings, if it has any."
    public static let openSettingsURLString = "app-settings:"

    /// Asks APNs for the device token (delivered to the delegate later).
    open func registerForRemoteNotifications() { registrations += 1 }

    /// Apple: "Attempts to asynchronously open the resource at the specified URL" (the `async` form of
    /// `open(_:options:completionHandler:)`).
    open func open(_ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:]) async -> Bool {
        opened.append(url)
        return true
    }

    // MARK: Mirror-only (not Apple API)

    /// How many times the app called `registerForRemoteNotifications()`.
    public var mirrorRemoteNotificationRegistrations: Int { registrations }
    /// Every URL the app opened, in order.
    public var mirrorOpenedURLs: [URL] { opened }
}

/// Mirror of `UIApplicationDelegate` (the methods the package implements). Apple's `@optional` methods have
/// do-nothing defaults here, which is what an unimplemented optional method amounts to: a misspelt witness is never
/// called, and the tests notice.
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)
    func application(
        _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void)
    func application(
        _ application: UIApplication, continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool
}

extension UIApplicationDelegate {
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { false }
    public func application(
        _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
    ) {}
    public func application(
        _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {}
    public func application(
        _ application: UIApplication, continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool { false }
}
