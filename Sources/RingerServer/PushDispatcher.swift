import APNs
import RingerLogging
import Foundation
import RingerStore
import RingerWire

/// Builds and sends pushes for call effects, and records each outcome.
///
/// Only ``sendIncomingCall(_:to:)`` sends a VoIP push: iOS kills an app that receives a VoIP push
/// and does not report a new incoming call, and repeated kills stop VoIP delivery to it
/// (Apple: PushKit, `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`). Notices
/// (``sendNotice(_:call:to:)``) go to the device's ordinary APNs token as an alert or a background
/// push; no path of this type can give them `apns-push-type: voip`.
final class PushDispatcher: Sendable {
    private let apns: APNsClient?
    private let store: any RingerStore
    private let observe: @Sendable (ServerObservation) -> Void
    private let log: Logger
    /// Pushes being sent; shutdown lets them finish.
    let pending = RequestGate()
    /// APNs configuration errors, for operators.
    let health = PushSetupHealth()

    init(apns: APNsClient?, store: any RingerStore, log: Logger, observe: @escaping @Sendable (ServerObservation) -> Void) {
        self.apns = apns
        self.store = store
        self.log = log
        self.observe = observe
    }

    /// The VoIP payload for a ringing call (API.md "VoIP push").
    static func incomingCallPayload(for call: Call, now: Date) throws -> [UInt8] {
        let push = VoIPPush(ringer: .init(callId: call.callId, caller: call.caller, calleeId: call.callee.id,
                                          hasVideo: call.hasVideo,
                                          sentAt: now.unixMilliseconds, expiresAt: call.expiresAt.unixMilliseconds))
        return Array(try RingerJSON.encode(push))
    }

    /// Wakes one device for a ringing call with a PushKit VoIP push.
    ///
    /// `apns-expiration` is the ring deadline, so a phone switched on after the call ended is never
    /// rung by it (APNs drops the stored push at that time).
    func sendIncomingCall(_ call: Call, to device: Device) async {
        guard apns != nil, let token = device.voipToken, let bundleID = device.bundleId, pending.enter() else { return }
        defer { pending.leave() }
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
        await deliver(notification, token: token, device: device, call: call, kind: "voip", until: call.expiresAt)
    }

    /// What a notice push says, by event type; nil when the event has no notice.
    static func noticePayload(for type: EventType, call: Call) throws -> (APNsPushType, [UInt8])? {
        let body = NoticePush.Body(type: type, callId: call.callId)
        switch type {
        case .callUnanswered:
            // A missed call is for the user, not the app: an ordinary alert (Apple: "Generating a remote notification").
            let alert = NoticePush.Alert(title: "Missed call", body: call.caller.name ?? call.caller.id)
            let payload = NoticePush(aps: .init(alert: alert, sound: "default"), ringer: body)
            return (.alert, Array(try RingerJSON.encode(payload)))
        case .callAnsweredElsewhere, .callDeclinedElsewhere, .callCancelled:
            // For the app only, to stop its ringing: a background push (content-available, priority 5).
            let payload = NoticePush(aps: .init(contentAvailable: 1), ringer: body)
            return (.background, Array(try RingerJSON.encode(payload)))
        default:
            return nil
        }
    }

    /// Tells devices by an ordinary push that the call changed (see ``CallEffect/pushNotice(_:to:)``).
    ///
    /// Background notices expire with the ring deadline (after it they mean nothing); a missed-call
    /// alert is kept by APNs for a day, so a phone that was off still learns of it.
    func sendNotice(_ type: EventType, call: Call, to devices: [Device]) async {
        guard apns != nil, type != .callIncoming, pending.enter() else { return }
        defer { pending.leave() }
        let built: (APNsPushType, [UInt8])?
        do {
            built = try Self.noticePayload(for: type, call: call)
        } catch {
            log.error("cannot encode notice payload", ["call.id": .string(call.callId)])
            return
        }
        guard let (pushType, payload) = built, pushType != .voip else { return }
        let expiration = pushType == .alert ? Date().addingTimeInterval(24 * 3600) : call.expiresAt
        await withTaskGroup(of: Void.self) { group in
            for device in devices where device.platform == .ios {
                guard let token = device.apnsToken, let bundleID = device.bundleId else { continue }
                let notification = APNsNotification(pushType: pushType, topic: pushType.topic(forBundleID: bundleID),
                                                    priority: pushType == .background ? 5 : 10,
                                                    expiration: expiration, collapseID: call.callId, payload: payload)
                group.addTask {
                    await self.deliver(notification, token: token, device: device, call: call, kind: pushType.rawValue,
                                       until: max(expiration, Date().addingTimeInterval(30)))
                }
            }
        }
    }

    /// Sends one notification, retrying what may succeed later until `deadline`, then records the
    /// outcome and tells the observer.
    private func deliver(_ notification: APNsNotification, token: String, device: Device, call: Call, kind: String,
                         until deadline: Date) async {
        guard let apns else { return }
        let environment: APNsClient.Environment = device.apnsEnvironment == .sandbox ? .sandbox : .production
        let now = Date()
        let started = ContinuousClock.now
        var status: Int?
        var reason: String?
        var unregisteredAt: Date?
        var action = APNsResponseAction.retry
        /// The `/healthz` reason of a configuration error that is not an APNs answer.
        var problem: String?
        var attempts = 0
        var backoff: TimeInterval = 0.25
        // A lost VoIP push is a missed call: retry what may succeed later, with the same apns-id,
        // while it still matters; never retry what cannot (APNsResponseAction, docs/apns.md).
        while true {
            do {
                let (response, count) = try await apns.send(notification, to: token, environment: environment,
                                                             deadline: deadline)
                (status, reason) = (response.status, response.reason?.rawValue)
                unregisteredAt = response.unregisteredAt
                attempts += count
                action = APNsResponseAction.forResponse(status: response.status, reason: response.reason)
            } catch let error as APNsClientError {
                (status, reason) = (nil, error.description)
                attempts += 1
                if error.isCertificateRefused {
                    // The certificate set-up is wrong (the TLS handshake says so, not an answer): an operator's
                    // problem like BadCertificate, shown by /healthz under this reason.
                    action = .configurationError
                    problem = "CertificateRefused"
                } else {
                    action = error.isRetryable ? .retry : .invalidRequest
                }
            } catch {
                (status, reason) = (nil, String(describing: error))
                attempts += 1
                action = .invalidRequest
            }
            guard action.isRetryable, attempts < 5 else { break }
            let delay = Double.random(in: backoff / 2...backoff)
            guard Date().addingTimeInterval(delay + 1) < deadline else { break }
            try? await Task.sleep(for: .seconds(delay))
            backoff *= 2
        }
        let elapsed = started.duration(to: .now)
        let latency = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let apnsID = notification.apnsID.uuidString.lowercased()
        let metadata: Logger.Metadata = ["call.id": .string(call.callId), "device.id": .string(device.deviceId),
                                         "apns.id": .string(apnsID), "apns.status": .string(status.map(String.init) ?? "none"),
                                         "apns.push_type": .string(kind)]
            .merging(reason.map { ["apns.reason": .string($0)] } ?? [:]) { $1 }
        switch action {
        case .accepted:
            log.info("push accepted", metadata)
            if let cleared = health.recordSuccess(environment: environment.rawValue, topic: notification.topic) {
                log.log(.notice, "APNs accepts pushes again", ["apns.topic": .string(cleared.topic),
                                                         "apns.environment": .string(cleared.environment),
                                                         "apns.refused_count": .string(String(cleared.count))])
            }
        case .removeToken:
            log.warning("push not accepted", metadata)
            await forget(token, device: device, invalidSince: unregisteredAt ?? now, reason: reason)
        case .flagDevice:
            log.warning("push not accepted", metadata)
            await flag(token, device: device, reason: reason ?? "", at: now, environment: environment)
        case .configurationError, .refreshProviderToken:
            // Every push to this topic fails the same way until the operator fixes the set-up.
            let isNew = health.record(environment: environment.rawValue, topic: notification.topic,
                                      reason: problem ?? reason ?? "HTTP \(status ?? 0)", at: now)
            if isNew {
                log.error("APNs refuses the server's configuration; pushes to this topic fail until it is fixed",
                          metadata.merging(["apns.topic": .string(notification.topic),
                                            "apns.environment": .string(environment.rawValue)]) { $1 })
            }
        case .invalidRequest:
            log.error("APNs refused a request Ringer built", metadata)
        case .providerTokenThrottled:
            log.error("APNs says the provider token is replaced too often (TooManyProviderTokenUpdates); "
                      + "no early token for 20 minutes: check that only one server process uses this key", metadata)
        case .retry:
            log.warning("push not accepted", metadata)
        }
        let attempt = PushAttempt(callId: call.callId, deviceId: device.deviceId, provider: "apns", pushType: kind,
                                  status: status, reason: reason, apnsId: apnsID, latencyMs: latency,
                                  attempts: attempts, sentAt: now)
        do {
            try await store.recordPushAttempt(attempt)
        } catch {
            log.error("cannot record push outcome", ["call.id": .string(call.callId), "error": .string("\(error)")])
        }
        observe(.pushSent(PushOutcome(callID: call.callId, deviceID: device.deviceId, pushType: kind, status: status,
                                      reason: reason, apnsID: apnsID, latencyMs: latency, sentAt: now)))
    }

    /// Marks a device whose token APNs refused as bad for this environment or topic; keeps the token
    /// (the same answer comes for a token of the other environment: Apple, "Handling notification
    /// responses from APNs"), so the app's next registration fixes it.
    private func flag(_ token: String, device: Device, reason: String, at date: Date, environment: APNsClient.Environment) async {
        log.warning("APNs refused a device token; kept, and the device is marked until the app registers again",
                    ["device.id": .string(device.deviceId), "apns.reason": .string(reason),
                     "apns.environment": .string(environment.rawValue)])
        do {
            _ = try await store.flagPushToken(token, problem: reason, at: date)
        } catch {
            log.error("cannot mark a device's push problem", ["device.id": .string(device.deviceId),
                                                               "error": .string("\(error)")])
        }
    }

    /// Removes a token APNs reported gone (410 `Unregistered` or `ExpiredToken`), unless the app
    /// registered it again since (Apple: "Handling notification responses from APNs": stop sending
    /// until the device registers a token with a later timestamp).
    private func forget(_ token: String, device: Device, invalidSince: Date, reason: String?) async {
        do {
            let removed = try await store.removeDeadPushToken(token, invalidSince: invalidSince)
            log.info(removed ? "removed a push token APNs reported gone" : "kept a push token registered again since",
                     ["device.id": .string(device.deviceId), "apns.reason": .string(reason ?? "")])
        } catch {
            log.error("cannot remove a dead push token", ["device.id": .string(device.deviceId),
                                                          "error": .string("\(error)")])
        }
    }
}
