import Foundation
internal import RingerKit
internal import RingerKitApple
internal import RingerWire
internal import UIKit
internal import UserNotifications

extension RingerReactNative {
    /// What the host takes from the app and the system. ``production`` is the app's; tests give their own (a
    /// temporary folder, fixed Info.plist values, a phone on the CallKit/PushKit mirrors).
    struct Environment: Sendable {
        /// Where the native half keeps its files (`Application Support/Ringer`); nil keeps nothing on disk.
        var folder: URL?
        /// Reads one of those files' bytes. Tests fail it as iOS does for a protected file before the first unlock.
        var readFile: @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
        /// A string value of the app's Info.plist (`RingerServerURL`, `RingerAPNsEnvironment`).
        var info: @Sendable (String) -> String?
        /// Creates the process's one `RingerPhone`.
        var makePhone: @Sendable (PhoneSetup) -> RingerPhone
        /// What the app's notification settings cost a call (the iOS side of the readiness pre-flight).
        var notificationProblems: @Sendable () async -> [ReadinessProblem]
        /// Opens the app's page in Settings; false when it could not.
        var openAppSettings: @Sendable () async -> Bool
        /// The phone's clock.
        var now: @Sendable () -> Date
    }

    /// What the host hands to ``Environment/makePhone``.
    struct PhoneSetup: Sendable {
        /// The Ringer server.
        var server: URL
        /// The APNs host this build's tokens belong to.
        var apnsEnvironment: APNsEnvironment
        /// The coordinator's observations, for the translator.
        var observer: @Sendable (CallCoordinator.Observation) -> Void
        /// The event stream's state, for the translator.
        var streamStatus: @Sendable (EventStream.Status) -> Void
    }
}

extension RingerReactNative.Environment {
    /// The app's: `Application Support/Ringer`, the main bundle's Info.plist, a `RingerPhone` with RingerKitApple's
    /// defaults (CallKit configuration, stores in Application Support, URLSession transports), the notification
    /// center's settings, and the app's page in Settings.
    static var production: Self {
        Self(
            folder: NativeFile.defaultFolder,
            info: { key in Bundle.main.object(forInfoDictionaryKey: key) as? String },
            makePhone: { setup in
                RingerPhone(
                    server: setup.server, apnsEnvironment: setup.apnsEnvironment, streamStatus: setup.streamStatus,
                    observer: setup.observer)
            },
            notificationProblems: {
                await withCheckedContinuation { continuation in
                    UNUserNotificationCenter.current().getNotificationSettings { settings in
                        continuation.resume(returning: RingerPhone.readinessProblems(for: settings.authorizationStatus))
                    }
                }
            },
            openAppSettings: { await openSettingsPage() },
            now: { Date() })
    }

    /// Apple: `UIApplication.openSettingsURLString` opens the app's own page in Settings, where notifications are
    /// turned back on.
    @MainActor private static func openSettingsPage() async -> Bool {
        guard let url = URL(string: UIApplication.openSettingsURLString) else { return false }
        return await UIApplication.shared.open(url)
    }
}
