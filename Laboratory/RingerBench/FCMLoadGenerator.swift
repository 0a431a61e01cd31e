public import FCM
public import Foundation

/// Sends a workload of identical ringing messages through Ringer's ``FCMClient`` with a fixed number in
/// flight, and measures throughput and latency. The client spreads them over its pool of HTTP/2 connections.
///
/// Each message is what `FCMPushSender` sends for a ringing call: data-only, `{"ringer": <JSON string>}`,
/// `android.priority` HIGH, `android.collapse_key` the call id, and `android.ttl` the seconds left to ring,
/// recomputed for every send (`FCMMessage.ttl(forSecondsLeft:)`), through ``FCMClient/send(_:to:projectID:deadline:)``
/// with the ring deadline. Thread-safe (a value).
public struct FCMLoadGenerator: Sendable {
    private let client: FCMClient
    private let token: String
    private let message: FCMMessage
    private let ringSeconds: TimeInterval

    /// Creates a generator.
    /// - Parameters:
    ///   - client: the client under test, configured for the sandbox's URL, CA and service account.
    ///   - token: a registration token the sandbox knows, of the client's default project.
    ///   - ringer: the `data.ringer` JSON string.
    ///   - collapseKey: `android.collapse_key` (the call id).
    ///   - ringSeconds: seconds left to ring when each message is built (Ringer's ring timeout, 45).
    public init(client: FCMClient, token: String, ringer: String, collapseKey: String, ringSeconds: TimeInterval = 45) {
        self.client = client
        self.token = token
        message = FCMMessage(data: ["ringer": ringer], priority: .high, collapseKey: collapseKey)
        self.ringSeconds = ringSeconds
    }

    /// Sends `workload.pushes` messages, keeping `workload.concurrency` in flight: a new one starts as soon
    /// as one is answered.
    /// - Parameter workload: counts.
    /// - Returns: the figures; a message that fails or is refused counts as not accepted (never throws, so one
    ///   bad answer does not hide the others).
    public func run(_ workload: PushWorkload) async -> SenderReport {
        await ClosedLoopLoad.run(workload, sender: "Ringer FCMClient") { await send() }
    }

    /// Sends one; nil when it was accepted, else the status and reason or the error.
    private func send() async -> String? {
        var outgoing = message
        outgoing.ttl = FCMMessage.ttl(forSecondsLeft: ringSeconds)
        let failure: String?
        do {
            let (response, _) = try await client.send(
                outgoing, to: token, deadline: Date().addingTimeInterval(ringSeconds))
            failure = response.isAccepted ? nil : "\(response.status) \(response.reason)"
        } catch {
            failure = String(describing: error)
        }
        return failure
    }
}
