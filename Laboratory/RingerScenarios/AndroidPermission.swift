/// The Android permissions a calling app's rules depend on, named as the manifest names them. Runtime ones
/// (`POST_NOTIFICATIONS`, `RECORD_AUDIO`) are granted or denied by the user; `USE_FULL_SCREEN_INTENT` is a
/// special app access on Android 14 (granted by default only to calling and alarm apps, revocable in
/// Settings); `MANAGE_OWN_CALLS` is a normal permission a self-managed ConnectionService needs.
public enum AndroidPermission: String, Sendable, Hashable, CaseIterable, Codable {
    /// `android.permission.POST_NOTIFICATIONS` (Android 13+): without it the app's notifications are not
    /// shown, including a missed-call notification (Android: "Notification runtime permission"). The
    /// notification of a self-managed call is exempt.
    case postNotifications = "android.permission.POST_NOTIFICATIONS"
    /// `android.permission.USE_FULL_SCREEN_INTENT` (Android 14 restricts it): without it a notification's
    /// full-screen intent shows as a heads-up notification, even on a locked phone.
    case useFullScreenIntent = "android.permission.USE_FULL_SCREEN_INTENT"
    /// `android.permission.RECORD_AUDIO`: needed for a foreground service of type `microphone`
    /// (Android 14: a SecurityException without it).
    case recordAudio = "android.permission.RECORD_AUDIO"
    /// `android.permission.MANAGE_OWN_CALLS`: needed for `TelecomManager.addNewIncomingCall` on a
    /// self-managed `PhoneAccount` and for a foreground service of type `phoneCall` (SecurityException without it).
    case manageOwnCalls = "android.permission.MANAGE_OWN_CALLS"

    /// The permission's short name, e.g. `POST_NOTIFICATIONS`.
    public var name: String { String(rawValue.dropFirst("android.permission.".count)) }
}
