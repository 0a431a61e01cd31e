import APNs
import RingerLogging
import Foundation
import RingerStore
import RingerWire

/// Builds and sends pushes for call effects, and records each outcome.
///
/// Only ``sendIncomingCall(_:to:)`` sends a VoIP push: iOS kills an app that receives a VoIP push
/// and does not report a new incoming call, and repeated kills stop VoIP delivery to it
/// (Apple: PushKit, `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`). No other method
/// of this type can produce `apns-push-type: voip`.
final class PushDispatcher: Sendable {
    private let apns: APNsClient?
    private let store: any RingerStore
    private let observe: @Sendable (ServerObservation) -> Void
    private let log: Logger

    init(apns: APNsClient?, store: any RingerStore, log: Logger, observe: @escaping @Sendable (ServerObservation) -> Void) {
        self.apns = apns
        self.store = store
        self.log = log
        self.observe = observe
    }

    /// The VoIP payload for a ringing call (API.md "VoIP push").
    static func incomingCallPayload(for call: Call, now: Date) throws -> [UInt8] {
        let push = VoIPPush(ringer: .init(callId: call.callId, caller: call.caller, hasVideo: call.hasVideo,
                                          sentAt: now.unixMilliseconds, expiresAt: call.expiresAt.unixMilliseconds))
        return Array(try RingerJSON.encode(push))
    }

    /// Wakes one device for a ringing call with a PushKit VoIP push.
    ///
    /// `apns-expiration` is the ring deadline, so a phone switched on after the call ended is never
    /// rung by it (APNs drops the stored push at that time).
    func sendIncomingCall(_ call: Call, to device: Device) async {
        guard let apns, let token = device.voipToken, let bundleID = device.bundleId else { return }
        let now = Date()
        let notification: APNsNotification
        do {
            notification = APNsNotification(pushType: .voip, topic: APNsPushType.voip.topic(forBundleID: bundleID),
                                            priority: 10, expiration: call.expiresAt,
                                            payload: try Self.incomingCallPayload(for: call, now: now))
        } catch {
            log.error("cannot encode VoIP payload", ["call.id": .string(call.callId)])
            return
        }
        let environment: APNsClient.Environment = device.apnsEnvironment == .sandbox ? .sandbox : .production
        let started = ContinuousClock.now
        var status: Int?
        var reason: String?
        var attempts = 0
        var backoff: TimeInterval = 0.25
        // A lost VoIP push is a missed call: retry what may succeed later (no answer, 429, 500, 503),
        // with the same apns-id, while the call can still ring. Apple: "Handling notification responses
        // from APNs" (retry TooManyRequests with a delay; never retry BadDeviceToken, Unregistered…).
        while true {
            do {
                let (response, count) = try await apns.send(notification, to: token, environment: environment)
                (status, reason) = (response.status, response.reason?.rawValue)
                attempts += count
            } catch let error as APNsClientError {
                (status, reason) = (nil, error.description)
                attempts += 1
                if !error.isRetryable { break }
            } catch {
                (status, reason) = (nil, String(describing: error))
                attempts += 1
                break
            }
            guard status == nil || status == 429 || status == 500 || status == 503, attempts < 5 else { break }
            let delay = Double.random(in: backoff / 2...backoff)
            guard Date().addingTimeInterval(delay + 1) < call.expiresAt else { break }
            try? await Task.sleep(for: .seconds(delay))
            backoff *= 2
        }
        let elapsed = started.duration(to: .now)
        let latency = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let apnsID = notification.apnsID.uuidString.lowercased()
        let metadata: Logger.Metadata = ["call.id": .string(call.callId), "device.id": .string(device.deviceId),
                                         "apns.id": .string(apnsID), "apns.status": .string(status.map(String.init) ?? "none"),
                                         "apns.reason": .string(reason ?? "")]
        if status == 200 {
            log.info("VoIP push accepted", metadata)
        } else {
            log.warning("VoIP push not accepted", metadata)
        }
        let attempt = PushAttempt(callId: call.callId, deviceId: device.deviceId, provider: "apns", pushType: "voip",
                                  status: status, reason: reason, apnsId: apnsID, latencyMs: latency,
                                  attempts: attempts, sentAt: now)
        do {
            try await store.recordPushAttempt(attempt)
        } catch {
            log.error("cannot record push outcome", ["call.id": .string(call.callId), "error": .string("\(error)")])
        }
        observe(.pushSent(PushOutcome(callID: call.callId, deviceID: device.deviceId, pushType: "voip", status: status,
                                      reason: reason, apnsID: apnsID, latencyMs: latency, sentAt: now)))
    }
}
