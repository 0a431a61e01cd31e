// A test-only mirror of the one ExpoModulesCore declaration @ringer/react-native's iOS half uses, so its AppDelegate
// subscriber type-checks and runs on Linux. Shapes as in expo/expo
// packages/expo-modules-core/ios/AppDelegates/ExpoAppDelegateSubscriber.swift (Expo SDK 53 and later): a base class
// that is a `UIResponder` with a `required init()`, a protocol refining `UIApplicationDelegate`, and
// `ExpoAppDelegateSubscriber` as a typealias of the two, so a subscriber subclasses it. Compiled in Swift 5 mode,
// like the Apple mirrors.

import UIKit

/// Mirror of `BaseExpoAppDelegateSubscriber` (`@objc(EXBaseAppDelegateSubscriber)`): Expo creates subscribers with
/// `init()`.
open class BaseExpoAppDelegateSubscriber: UIResponder {
    public override required init() { super.init() }
}

/// Mirror of `ExpoAppDelegateSubscriberProtocol` (`@objc(EXAppDelegateSubscriberProtocol)`).
public protocol ExpoAppDelegateSubscriberProtocol: UIApplicationDelegate {}

/// Mirror of `ExpoAppDelegateSubscriber`.
public typealias ExpoAppDelegateSubscriber = BaseExpoAppDelegateSubscriber & ExpoAppDelegateSubscriberProtocol
