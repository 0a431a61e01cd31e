import Foundation
import RingerWire

/// One push provider (APNs, FCM): builds its message for a ``PushRequest`` and sends it, mapping every
/// answer to a ``PushAnswer``. It never retries across sends, touches the store or logs outcomes:
/// ``PushDelivery`` does, the same way for every provider.
protocol PushSender: Sendable {
    /// The provider's message, built once per request and sent as often as ``PushDelivery`` retries.
    associatedtype Message: Sendable

    /// The provider, as push records, logs and `/healthz` name it.
    var provider: PushProvider { get }

    /// Builds the message for a request.
    /// - Parameter request: the push to send.
    /// - Returns: the message, or nil when the device has no token this provider can use for the purpose.
    /// - Throws: when the payload cannot be encoded or exceeds the provider's limit (nothing is sent).
    func message(for request: PushRequest) throws -> Message?

    /// Sends the message once.
    /// - Parameters:
    ///   - message: from ``message(for:)``.
    ///   - request: the push it is for.
    ///   - now: the server's time at this send (an FCM `ttl` is what is left of the deadline from here).
    ///   - timeout: real seconds the send may take before it counts as unanswered.
    /// - Returns: the answer; never throws.
    func send(_ message: Message, for request: PushRequest, now: Date, timeout: TimeInterval) async -> PushAnswer

    /// What records and logs call the push type (`voip`, `alert`, `background`; FCM's priority).
    func pushType(of message: Message) -> PushType

    /// The push type a request's message has, known before it is built: what the record of a push that
    /// could not be built shows.
    func pushType(for request: PushRequest) -> PushType

    /// The device or registration token the message goes to, and which of the device's tokens it is (what a
    /// dead-token answer removes, or a refusal marks).
    func token(of message: Message) -> (kind: PushTokenKind, value: String)

    /// The `apns-id` the sender chose for the request, which APNs echoes (APNs only; nil for FCM, whose
    /// message name comes with the answer).
    func apnsID(of message: Message) -> String?

    /// Where a configuration error or a recovery applies.
    func scope(of message: Message, for request: PushRequest) -> PushScope
}
