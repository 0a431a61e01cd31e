// The Expo half of the iOS package, its own pod (RingerReactNativeExpo.podspec beside this file), which Expo's
// autolinking installs from expo-module.config.json (`apple.podspecPath`) in Expo apps only: a bare React Native app
// never links ExpoModulesCore, and calls RingerReactNative from its own AppDelegate instead.
public import ExpoModulesCore
public import Foundation
// NSUserActivity: Foundation's on iOS, the Intents mirror's on Linux (see RingerReactNative+CallBack.swift).
public import Intents
import RingerReactNative
public import UIKit

/// Starts the native half at launch in an Expo app, with no AppDelegate text to edit (Expo SDK 53+ `ExpoAppDelegate`
/// forwards `UIApplicationDelegate` calls to every subscriber): ``RingerReactNative/start()`` in
/// `didFinishLaunching`, so PushKit is registered before it returns, then the APNs token, remote notifications and a
/// tap on a call in the phone's Recents (`ExpoAppDelegate` returns true for a user activity when any subscriber does).
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

    /// Lets the phone read a user activity: a tap on one of the app's calls in Recents becomes `callBackRequested`.
    /// Returns false for any other activity (a universal link, Handoff), which the app's own handlers take.
    public func application(
        _ application: UIApplication, continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool {
        RingerReactNative.shared.handle(userActivity: userActivity)
    }
}
