public import Foundation

/// The outcome of one push to one device, kept for operators and shown on the call.
public struct PushAttempt: Codable, Hashable, Sendable {
    /// The call the push was for.
    public var callID: String
    /// The device pushed to.
    public var deviceID: String
    /// Group calls: whose device it is (device ids are unique per user only, so two callees may both have a `phone`);
    /// nil, and absent on the wire, for a 1:1 call's pushes.
    public var userID: String?
    /// `apns` or `fcm`.
    public var provider: PushProvider
    /// The APNs push type (`voip`, `alert`, `background`) or the FCM message's priority (`high`, `normal`).
    public var pushType: PushType
    /// The provider's HTTP status, nil when no answer came (transport failure or timeout).
    public var status: Int?
    /// The provider's reason (`BadDeviceToken`, …) or a transport error summary.
    public var reason: String?
    /// The `apns-id` of the request (APNs).
    public var apnsID: String?
    /// The message's resource name FCM answered with, `projects/<project>/messages/<id>` (FCM).
    public var messageName: String?
    /// Time from sending to the answer, milliseconds.
    public var latencyMs: Double
    /// How many requests it took (1 when the first succeeded; 0 when none could be sent before its deadline).
    public var attempts: Int
    /// When the push was sent.
    public var sentAt: Date
    /// The device's readiness problems when the push was sent (``DeviceReadiness``), so an accepted push
    /// still says why the phone may not have rung ("delivered, but this phone cannot show a full-screen
    /// call"); nil when it reported none.
    public var readiness: [ReadinessProblem]?

    /// Creates a push attempt record; the properties of the same names say what each holds.
    public init(
        callID: String, deviceID: String, provider: PushProvider, pushType: PushType, status: Int?,
        reason: String?, apnsID: String?, messageName: String? = nil, latencyMs: Double, attempts: Int,
        sentAt: Date, readiness: [ReadinessProblem]? = nil, userID: String? = nil
    ) {
        self.callID = callID
        self.deviceID = deviceID
        self.userID = userID
        self.provider = provider
        self.pushType = pushType
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.messageName = messageName
        self.latencyMs = latencyMs
        self.attempts = attempts
        self.sentAt = sentAt
        self.readiness = readiness
    }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case provider, pushType, status, reason, messageName, latencyMs, attempts, sentAt, readiness
        case callID = "callId"
        case deviceID = "deviceId"
        case userID = "userId"
        case apnsID = "apnsId"
    }
}
