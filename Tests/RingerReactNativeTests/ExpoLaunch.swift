// No `import Testing` here: Swift Testing declares a cross-import overlay for UIKit, which the UIKit mirror lacks.
import ExpoModulesCore
import Foundation
import RingerReactNativeExpoMirrored
import RingerReactNativeMirrored
import UIKit

/// Plays `ExpoAppDelegate`'s part at launch: calls ``RingerAppDelegateSubscriber`` through the protocol, as Expo's
/// subscriber manager does.
@MainActor enum ExpoLaunch {
    struct Result {
        var finishedLaunching: Bool
        var registeredForRemoteNotifications: Bool
        var fetchResult: String
    }

    static func run() -> Result {
        let subscriber: any ExpoAppDelegateSubscriberProtocol = RingerAppDelegateSubscriber()
        let application = UIApplication.shared
        let registrations = application.mirrorRemoteNotificationRegistrations
        let finished = subscriber.application(application, didFinishLaunchingWithOptions: nil)
        subscriber.application(application, didRegisterForRemoteNotificationsWithDeviceToken: Data([1]))
        var fetch: UIBackgroundFetchResult?
        subscriber.application(application, didReceiveRemoteNotification: ["aps": ["alert": "hi"]]) { fetch = $0 }
        return Result(
            finishedLaunching: finished,
            registeredForRemoteNotifications: application.mirrorRemoteNotificationRegistrations == registrations + 1,
            fetchResult: fetch.map { "\($0)" } ?? "none")
    }
}
