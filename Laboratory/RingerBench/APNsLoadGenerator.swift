public import APNs
public import Foundation
import RingerWire

/// Sends a workload of identical VoIP pushes through Ringer's ``APNsClient`` with a fixed number in
/// flight, and measures throughput and latency. The client multiplexes them on its one HTTP/2 connection.
///
/// Each push is what `PushDispatcher` sends for a ringing call: `apns-push-type: voip`, topic
/// `<bundle id>.voip`, priority 10, `apns-expiration` a ring deadline ahead, a fresh `apns-id`.
/// Thread-safe (a value); ``run(_:)`` may be called again for another round on the same connection.
public struct APNsLoadGenerator: Sendable {
    private let client: APNsClient
    private let deviceToken: String
    private let topic: String
    private let payload: [UInt8]
    private let ringSeconds: TimeInterval

    /// Creates a generator.
    /// - Parameters:
    ///   - client: the client under test, configured for the sandbox's URL and CA.
    ///   - deviceToken: a hex token the sandbox knows (registered for the topic's app).
    ///   - topic: `<bundle id>.voip`.
    ///   - payload: the JSON payload, the same bytes for every push.
    ///   - ringSeconds: `apns-expiration` is this many seconds after each push is built (Ringer's ring timeout).
    public init(
        client: APNsClient, deviceToken: String, topic: String, payload: [UInt8], ringSeconds: TimeInterval = 45
    ) {
        self.client = client
        self.deviceToken = deviceToken
        self.topic = topic
        self.payload = payload
        self.ringSeconds = ringSeconds
    }

    /// Sends `workload.pushes` pushes, keeping `workload.concurrency` in flight: a new one starts as soon
    /// as one is answered.
    /// - Parameter workload: counts.
    /// - Returns: the figures; a push that fails or is refused counts as not accepted (never throws, so one
    ///   bad answer does not hide the others).
    public func run(_ workload: PushWorkload) async -> SenderReport {
        await ClosedLoopLoad.run(workload, sender: "Ringer APNsClient") { await send() }
    }

    /// Sends one; nil when it was accepted, else the status and reason or the error.
    private func send() async -> String? {
        let notification = APNsNotification(
            pushType: .voip, topic: topic, priority: 10,
            expiration: Date().addingTimeInterval(ringSeconds), payload: payload)
        let failure: String?
        do {
            let (response, _) = try await client.send(notification, to: deviceToken, environment: .sandbox)
            failure = response.isAccepted ? nil : "\(response.status) \(response.reason?.rawValue ?? "(no reason)")"
        } catch {
            failure = String(describing: error)
        }
        return failure
    }
}
