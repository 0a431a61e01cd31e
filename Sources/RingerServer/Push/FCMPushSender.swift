import FCM
import Foundation
import RingerWire

/// Builds and sends FCM HTTP v1 messages for ``PushRequest``s, and maps every FCM answer to a
/// ``PushAction`` (through `FCMResponseAction`, one row per Google error code; docs/fcm.md).
///
/// Every message carries the call in `data.ringer`, a JSON string (FCM data values are strings: Google,
/// "Build app server send requests"), with the call id as `android.collapse_key`, so a phone that was
/// offline gets only the call's latest message. Priorities (docs/fcm.md, "Which priority each message
/// gets"):
/// - ringing: data-only, HIGH, `ttl` = the seconds left to ring, rounded up, at least 1 s, recomputed on
///   every send, so a phone back after the deadline never rings (docs/fcm.md, "Which priority each message gets");
/// - stopping a ringing phone: data-only, HIGH to a device that may be ringing (it was sent the ringing
///   message, or acknowledged `ringing`: the stop ends something the user sees, and must reach it at once even
///   if it dozed off), NORMAL to the callee's other devices (they never showed the call; a HIGH message that
///   changes nothing on screen counts towards FCM demoting the app's high-priority messages); `ttl` = what is
///   left of the ring;
/// - a missed call: NORMAL with a `notification` block the system shows even if the app never runs,
///   kept for a day.
struct FCMPushSender: PushSender {
    /// A message, its token and its project.
    struct Message: Sendable {
        var message: FCMMessage
        var token: String
        var projectID: String
    }

    let client: FCMClient
    var provider: PushProvider { .fcm }

    /// The `data` of a message: `{"ringer": "<JSON>"}`, the same `ringer` object as the VoIP push for
    /// ringing (docs/openapi.yaml `components/schemas/VoIPPush`, its `ringer`), `{"v":1,"type":…,"call_id":…}`
    /// otherwise (`AlertOrBackgroundPush`'s `ringer`).
    /// - Throws: `EncodingError` (never for a well-formed call).
    static func data(for purpose: PushRequest.Purpose, call: Call, now: Date) throws -> [String: String] {
        let json: [UInt8]
        switch purpose {
        case .ring:
            let body = VoIPPush.Body(ringing: call, sentAt: now)
            json = try RingingBodyJSON.body(body) ?? Array(RingerJSON.encode(body))
        case .stopRinging, .missedCall:
            json = Array(
                try RingerJSON.encode(AlertOrBackgroundPush.Body(type: purpose.eventType, callID: call.callID)))
        }
        return ["ringer": String(decoding: json, as: UTF8.self)]
    }

    func message(for request: PushRequest) throws -> Message? {
        let device = request.device
        // Every message goes to the token that rings the device (`Device.ringingToken`): Android has one.
        guard device.platform == .android, let token = device.ringingToken?.value else { return nil }
        let call = request.call
        var message = FCMMessage(
            data: try Self.data(for: request.purpose, call: call, now: request.createdAt),
            priority: Self.priority(for: request), collapseKey: call.callID)
        if request.purpose == .missedCall {
            let alert = request.missedCallAlert
            message.notification = .init(title: alert.title, body: alert.body)
        }
        try message.validate()
        return Message(message: message, token: token, projectID: device.fcmProjectID ?? client.defaultProjectID)
    }

    func send(_ message: Message, for request: PushRequest, now: Date, timeout: TimeInterval) async -> PushAnswer {
        var outgoing = message.message
        // What is left of the ring (a day for a missed call), in the server's seconds: the sandbox, like the
        // phone, judges it on the same clock.
        outgoing.ttl = FCMMessage.ttl(forSecondsLeft: request.providerExpiration.timeIntervalSince(now))
        let action: FCMResponseAction
        var answer = PushAnswer(status: nil, reason: nil, action: .invalidRequest, requests: 1)
        do {
            let (response, requests) = try await client.send(
                outgoing, to: message.token, projectID: message.projectID,
                // Real time, not the server clock's: `timeout` is the network's wait, already real seconds.
                deadline: Date().addingTimeInterval(timeout))
            action = FCMResponseAction.forResponse(response)
            answer.status = response.status
            answer.reason = response.isAccepted ? nil : response.reason
            answer.messageName = response.name
            answer.requests = requests
            // The token may be another Firebase project's (the app registered the wrong one): mark the device too.
            answer.marksDevice = response.errorCode == .senderIdMismatch
        } catch let error as FCMClientError {
            action = FCMResponseAction.forFailure(error)
            answer.reason = error.description
            // Nothing reached FCM when the message was refused before sending, its deadline had passed, or no
            // access token could be had.
            answer.requests = error.isDeadlinePassed || error.isInvalidMessage || error.accessTokenError != nil ? 0 : 1
            // No access token within the send's time (the token endpoint silent, or answering 429/5xx): no message
            // of the project can be sent until a grant succeeds, which health must show at once.
            if error.accessTokenError?.isRetryable == true {
                answer.credentialOutage = FCMCredentialWatch.unreachableReason
            }
        } catch {
            action = .retry(after: nil)
            answer.reason = String(describing: error)
        }
        switch action {
        case .accepted: answer.action = .accepted
        case .retry(let after): answer.action = .retry(after: after)
        // FCM gives no timestamp: the token is dead unless registered again after this message was sent.
        case .removeToken: answer.action = .removeToken(invalidSince: nil)
        case .configurationError: answer.action = .configurationError
        case .invalidRequest: answer.action = .invalidRequest
        case .deadlinePassed: answer.action = .retry(after: nil)
        }
        return answer
    }

    func pushType(of message: Message) -> PushType { PushType(message.message.priority) }

    func pushType(for request: PushRequest) -> PushType { PushType(Self.priority(for: request)) }

    /// High to ring, and to stop a phone that may be ringing (so it stops at once, even in Doze); normal for
    /// the rest, which must not spend the app's high-priority budget (Google: "Set and manage Android message
    /// priority").
    static func priority(for request: PushRequest) -> FCMMessage.Priority {
        switch request.purpose {
        case .ring: .high
        case .stopRinging: request.deviceMayBeRinging ? .high : .normal
        case .missedCall: .normal
        }
    }

    func token(of message: Message) -> (kind: PushTokenKind, value: String) { (.fcm, message.token) }

    func apnsID(of message: Message) -> String? { nil }

    func scope(of message: Message, for request: PushRequest) -> PushScope {
        PushScope(provider: provider, project: message.projectID)
    }
}

extension PushType {
    /// The record of an FCM message: its `android.priority`, lowercased (`high`, `normal`).
    init(_ priority: FCMMessage.Priority) {
        switch priority {
        case .high: self = .high
        case .normal: self = .normal
        }
    }
}
