// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
// UserNotifications exists on every one of these platforms, so the guard needs no `canImport` for it.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
import RingerKit
public import RingerWire
// UserNotifications' classes are not Sendable-annotated on every SDK; the settings object is read inside
// its completion handler and goes no further.
@preconcurrency public import UserNotifications

extension RingerPhone {
    /// Reads this app's notification settings and reports to the server what they cost a call,
    /// through ``PushTokenRegistrar/setReadiness(_:)`` (the readiness pre-flight, docs/ios-integration.md).
    ///
    /// A VoIP push rings through CallKit whether or not the user allowed notifications, so a denial does not
    /// stop the phone ringing; it makes the missed-call alert (`call.unanswered`) show nothing (Apple: "Asking
    /// permission to use notifications"). The caller's app learns it as `notifications_disabled`.
    ///
    /// `init` calls it, so every launch reports. Call it again whenever the app becomes active
    /// (`UIApplication.didBecomeActiveNotification`): the user changes the setting in Settings, outside the app,
    /// and the app returns to active after the permission prompt. The registrar sends a changed report only (after login).
    ///
    /// Returns at once; the settings arrive on a background thread and go to the registrar from there.
    /// Thread-safe. `UNUserNotificationCenter.current()` needs an app bundle: a test target that creates a
    /// `RingerPhone` must run inside a host app.
    public func refreshReadiness() {
        let registrar = registrar
        UNUserNotificationCenter.current().getNotificationSettings { settings in
            registrar.setReadiness(DeviceReadiness(problems: Self.readinessProblems(for: settings.authorizationStatus)))
        }
    }

    /// The readiness problems a notification authorization status means: ``ReadinessProblem/notificationsDisabled``
    /// for `.denied` only. `.notDetermined` has not been refused (the app has yet to ask); `.provisional` and
    /// `.ephemeral` deliver alerts (quietly to Notification Center, or for a limited time in an App Clip); `.authorized`
    /// delivers them. ``ReadinessProblem/noPushToken`` is the registrar's to add.
    /// - Parameter status: `UNNotificationSettings.authorizationStatus`.
    /// - Returns: the problems, empty when notifications can be shown.
    public static func readinessProblems(for status: UNAuthorizationStatus) -> [ReadinessProblem] {
        // A comparison, not a switch: `.ephemeral` is iOS-only (App Clips), and the SDK's enum is open.
        status == .denied ? [.notificationsDisabled] : []
    }
}
#endif
