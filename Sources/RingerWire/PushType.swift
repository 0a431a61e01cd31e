/// What kind of push a record shows (`push_type`): for APNs the `apns-push-type` header (Apple: "Sending
/// notification requests to APNs"), for FCM the message's `android.priority`, lowercased (Google:
/// `AndroidMessagePriority`), since an FCM data message has no other type.
///
/// An open value set like the other wire enums: a client still decodes a kind added later.
public struct PushType: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted (the server only sends the ones below).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// APNs: a PushKit VoIP push, the only push that rings.
    public static let voip: PushType = "voip"
    /// APNs: an alert the system shows (a missed call).
    public static let alert: PushType = "alert"
    /// APNs: a background push (`content-available`) that stops a ringing app.
    public static let background: PushType = "background"
    /// FCM: a high-priority message (ringing, and stopping a device that may be ringing).
    public static let high: PushType = "high"
    /// FCM: a normal-priority message (everything else).
    public static let normal: PushType = "normal"
}
