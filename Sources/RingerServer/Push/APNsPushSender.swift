import APNs
import Foundation
import RingerSupport
import RingerWire

/// Builds and sends APNs notifications for ``PushRequest``s, and maps every APNs answer to a
/// ``PushAction`` (through `APNsResponseAction`, Apple's table; docs/apns.md).
///
/// Only ``PushRequest/Purpose/ring`` becomes a VoIP push: iOS kills an app that receives a VoIP
/// push and does not report a new incoming call, and repeated kills stop VoIP delivery to it (Apple:
/// PushKit, `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`). Stopping a ringing phone is a
/// background push (content-available, priority 5) to the device's ordinary APNs token, and a missed call
/// an alert, so no other purpose can ever carry `apns-push-type: voip`.
struct APNsPushSender: PushSender {
    /// A notification and where it goes.
    struct Message: Sendable {
        var notification: APNsNotification
        var token: String
        var environment: APNsEnvironment
    }

    let client: APNsClient
    var provider: PushProvider { .apns }

    /// The VoIP payload for a ringing call (docs/openapi.yaml `components/schemas/VoIPPush`).
    /// - Throws: `EncodingError` (never for a well-formed call).
    static func incomingCallPayload(for call: Call, now: Date) throws -> [UInt8] {
        let body = VoIPPush.Body(ringing: call, sentAt: now)
        return try RingingBodyJSON.voipPush(body) ?? Array(RingerJSON.encode(VoIPPush(ringer: body)))
    }

    /// The payload of an update push: one that stops the ringing (background) or tells of a missed call (alert).
    /// - Throws: `EncodingError` (never for a well-formed call).
    static func updatePayload(for request: PushRequest) throws -> [UInt8] {
        let body = AlertOrBackgroundPush.Body(type: request.purpose.eventType, callID: request.call.callID)
        let alert = request.missedCallAlert
        let aps: AlertOrBackgroundPush.APS =
            request.purpose == .missedCall
            // A missed call is for the user, not the app: an ordinary alert (Apple: "Generating a remote notification").
            ? .init(alert: .init(title: alert.title, body: alert.body), sound: "default")
            // For the app only, to stop its ringing: a background push.
            : .init(contentAvailable: 1)
        return Array(try RingerJSON.encode(AlertOrBackgroundPush(aps: aps, ringer: body)))
    }

    func message(for request: PushRequest) throws -> Message? {
        let device = request.device
        guard device.platform == .ios, let bundleID = device.bundleID else { return nil }
        // Apple's two hosts: a device registered without an environment (or with one Ringer does not know) is
        // production's, so `/healthz` and the logs name one of the two.
        let environment: APNsEnvironment = device.apnsEnvironment == .sandbox ? .sandbox : .production
        switch request.purpose {
        case .ring:
            // `apns-expiration` is the ring deadline, so a phone switched on after the call ended is never rung.
            guard let token = device.ringingToken?.value else { return nil }
            let notification = APNsNotification(
                pushType: Self.pushType(for: request.purpose),
                topic: APNsPushType.voip.topic(forBundleID: bundleID),
                priority: 10, expiration: request.call.expiresAt,
                payload: try Self.incomingCallPayload(for: request.call, now: request.createdAt))
            return Message(notification: notification, token: token, environment: environment)
        case .stopRinging, .missedCall:
            guard let token = device.apnsToken else { return nil }
            let type = Self.pushType(for: request.purpose)
            // A background push means nothing after the ring deadline; a missed-call alert is kept by APNs for a day.
            let notification = APNsNotification(
                pushType: type, topic: type.topic(forBundleID: bundleID),
                priority: type == .background ? 5 : 10, expiration: request.providerExpiration,
                collapseID: request.call.callID,
                payload: try Self.updatePayload(for: request))
            return Message(notification: notification, token: token, environment: environment)
        }
    }

    func send(_ message: Message, for request: PushRequest, now: Date, timeout: TimeInterval) async -> PushAnswer {
        do {
            let (response, requests) = try await client.send(
                message.notification, to: message.token,
                environment: message.environment,
                // Real time, not the server clock's: `timeout` is the network's wait, already real seconds.
                deadline: Date().addingTimeInterval(timeout))
            let action = APNsResponseAction.forResponse(status: response.status, reason: response.reason)
            var answer = PushAnswer(
                status: response.status, reason: response.reason?.rawValue, action: .invalidRequest,
                requests: requests)
            switch action {
            case .accepted: answer.action = .accepted
            case .retry: answer.action = .retry(after: nil)
            case .removeToken: answer.action = .removeToken(invalidSince: response.unregisteredAt)
            case .flagDevice: answer.action = .flagDevice
            // A refused provider token was already minted anew and retried once by the client.
            case .configurationError, .refreshProviderToken: answer.action = .configurationError
            case .invalidRequest: answer.action = .invalidRequest
            case .providerTokenThrottled:
                answer.action = .retry(after: nil)
                answer.operatorAlert =
                    "APNs says the provider token is replaced too often (TooManyProviderTokenUpdates); "
                    + "no early token for 20 minutes: check that only one server process uses this key"
            }
            return answer
        } catch let error as APNsClientError {
            if error.isCertificateRefused {
                // The TLS handshake, not an answer, says the certificate set-up is wrong: an operator's problem
                // like BadCertificate, shown by /healthz under this reason.
                return PushAnswer(
                    status: nil, reason: error.description, action: .configurationError, requests: 1,
                    healthReason: "CertificateRefused")
            }
            // A deadline that passed before sending is for the retry rule to judge, not a bad request.
            let retryable = error.isRetryable || error == .deadlinePassed
            return PushAnswer(
                status: nil, reason: error.description, action: retryable ? .retry(after: nil) : .invalidRequest,
                requests: error == .deadlinePassed ? 0 : 1)
        } catch {
            return PushAnswer(status: nil, reason: String(describing: error), action: .invalidRequest, requests: 1)
        }
    }

    func pushType(of message: Message) -> PushType { PushType(message.notification.pushType) }

    func pushType(for request: PushRequest) -> PushType { PushType(Self.pushType(for: request.purpose)) }

    /// VoIP only to ring; an alert for a missed call; a background push to stop the ringing.
    static func pushType(for purpose: PushRequest.Purpose) -> APNsPushType {
        switch purpose {
        case .ring: .voip
        case .missedCall: .alert
        case .stopRinging: .background
        }
    }

    func token(of message: Message) -> (kind: PushTokenKind, value: String) {
        (message.notification.pushType == .voip ? .voip : .apns, message.token)
    }

    func apnsID(of message: Message) -> String? { message.notification.apnsID.lowercaseText }

    func scope(of message: Message, for request: PushRequest) -> PushScope {
        PushScope(provider: provider, environment: message.environment, topic: message.notification.topic)
    }
}

extension PushType {
    /// The record of an APNs push: its `apns-push-type` header value, as Apple spells it.
    init(_ type: APNsPushType) { self.init(rawValue: type.rawValue) }
}
