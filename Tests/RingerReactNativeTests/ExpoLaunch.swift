// No `import Testing` here: Swift Testing declares a cross-import overlay for UIKit, which the UIKit mirror lacks.
import ExpoModulesCore
import Foundation
import Intents
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
        /// What the subscriber answered for a tap on a Ringer call in Recents.
        var continuedCallBack: Bool
        /// What it answered for a universal link.
        var continuedOtherActivity: Bool
    }

    static func run() -> Result {
        let subscriber: any ExpoAppDelegateSubscriberProtocol = RingerAppDelegateSubscriber()
        let application = UIApplication.shared
        let registrations = application.mirrorRemoteNotificationRegistrations
        let finished = subscriber.application(application, didFinishLaunchingWithOptions: nil)
        subscriber.application(application, didRegisterForRemoteNotificationsWithDeviceToken: Data([1]))
        var fetch: UIBackgroundFetchResult?
        subscriber.application(application, didReceiveRemoteNotification: ["aps": ["alert": "hi"]]) { fetch = $0 }
        let recents = recentsTap("alice")
        let link = NSUserActivity(activityType: "NSUserActivityTypeBrowsingWeb")
        return Result(
            finishedLaunching: finished,
            registeredForRemoteNotifications: application.mirrorRemoteNotificationRegistrations == registrations + 1,
            fetchResult: fetch.map { "\($0)" } ?? "none",
            continuedCallBack: subscriber.application(application, continue: recents) { _ in },
            continuedOtherActivity: subscriber.application(application, continue: link) { _ in })
    }
}

/// The user activity iOS hands the app for a tap on a call in Recents whose handle is `handle`.
func recentsTap(
    _ handle: String, _ capability: INCallCapability = .audioCall, type: INPersonHandleType = .unknown
) -> NSUserActivity {
    let activity = NSUserActivity(activityType: "INStartCallIntent")
    let person = INPerson(personHandle: INPersonHandle(value: handle, type: type))
    activity.interaction = INInteraction(intent: INStartCallIntent(contacts: [person], callCapability: capability))
    return activity
}
