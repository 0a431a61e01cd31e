public import Foundation

/// What APNs answered for one notification.
public struct APNsResponse: Hashable, Sendable {
    /// The HTTP status; 200 means APNs accepted the notification for delivery.
    public var status: Int
    /// The `apns-id` APNs echoed (or assigned).
    public var apnsID: String?
    /// The error reason from the body, for any status other than 200.
    public var reason: APNsReason?
    /// For 410 `Unregistered`: when APNs last confirmed the token was no longer valid.
    public var unregisteredAt: Date?

    /// Creates a response.
    /// APNs' clock, from the answer's `Date` header when it sent one (`ringer doctor` measures the server's clock by it).
    public var serverDate: Date?

    public init(status: Int, apnsID: String? = nil, reason: APNsReason? = nil, unregisteredAt: Date? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.unregisteredAt = unregisteredAt
    }

    /// True when APNs accepted the notification.
    public var isAccepted: Bool { status == 200 }

    /// Parses an APNs response body: empty on success, `{"reason":…,"timestamp":<ms>}` otherwise.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - apnsID: the `apns-id` response header.
    ///   - body: the response body bytes; unparseable bodies leave `reason` nil.
    public init(status: Int, apnsID: String?, body: [UInt8]) {
        struct ErrorBody: Decodable {
            var reason: APNsReason?
            var timestamp: Int64?
        }
        self.status = status
        self.apnsID = apnsID
        guard status != 200, !body.isEmpty, let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body))
        else {
            return
        }
        reason = parsed.reason
        unregisteredAt = parsed.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}
