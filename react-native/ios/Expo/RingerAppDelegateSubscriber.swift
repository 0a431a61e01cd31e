// The Expo half of the iOS package, its own pod (RingerReactNativeExpo.podspec beside this file), which Expo's
// autolinking installs from expo-module.config.json (`apple.podspecPath`) in Expo apps only: a bare React Native app
// never links ExpoModulesCore, and calls RingerReactNative from its own AppDelegate instead.
public import ExpoModulesCore
public import Foundation
import RingerReactNative
public import UIKit

/// Starts the native half at launch in an Expo app, with no AppDelegate text to edit (Expo SDK 53+ `ExpoAppDelegate`
/// forwards `UIApplicationDelegate` calls to every subscriber): ``RingerReactNative/start()`` in
/// `didFinishLaunching`, so PushKit is registered before it returns, then the APNs token and remote notifications.
/// Expo creates it with `init()`, as `BaseExpoAppDelegateSubscriber` requires.
public final class RingerAppDelegateSubscriber: ExpoAppDelegateSubscriber {
    /// Starts ``RingerReactNative/shared`` and asks for the APNs token.
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        RingerReactNative.start()
        application.registerForRemoteNotifications()
        return true
    }

    /// Hands the APNs token to the phone.
    public func application(
        _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
    ) {
        RingerReactNative.shared.setAPNsToken(deviceToken)
    }

    /// Lets the phone read a remote notification (a Ringer background push closes a call answered elsewhere).
    public func application(
        _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        completionHandler(RingerReactNative.shared.handleNotification(userInfo) ? .newData : .noData)
    }
}
