public import Foundation

/// The type of an event sent to the app's backend's webhook endpoints (docs/openapi.yaml `webhooks`; decision 0009
/// §3). Dotted, as Standard Webhooks names them. An open set: a receiver ignores types it does not know.
public struct WebhookEventType: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string decodes, and the server refuses a subscription to one it does not know.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A call was stored: it rings, or ended at once (`busy`, `failed`; those states follow as their own events).
    public static let callCreated: WebhookEventType = "call.created"
    /// A callee's device acknowledged that it rings (`device_id`, `user_id`).
    public static let callRinging: WebhookEventType = "call.ringing"
    /// A callee answered.
    public static let callAccepted: WebhookEventType = "call.accepted"
    /// The callee declined (a group call: every callee that could answer declined).
    public static let callDeclined: WebhookEventType = "call.declined"
    /// The callee was in another call (a group call: every callee that could ring was).
    public static let callBusy: WebhookEventType = "call.busy"
    /// The caller, or the app's backend, stopped the call before an answer.
    public static let callCancelled: WebhookEventType = "call.cancelled"
    /// Nobody answered before the ring deadline: a missed call.
    public static let callUnanswered: WebhookEventType = "call.unanswered"
    /// An answered call ended (`ended_by` or `end_reason`, and `duration_ms`).
    public static let callEnded: WebhookEventType = "call.ended"
    /// The call could ring none of the callee's phones.
    public static let callFailed: WebhookEventType = "call.failed"
    /// A group call's leg changed (`user_id`; the leg's state is in the call's `legs`).
    public static let callLegUpdated: WebhookEventType = "call.leg_updated"
    /// A device's push token was removed because the provider reported it dead (APNs 410, FCM `UNREGISTERED`).
    public static let devicePushTokenRemoved: WebhookEventType = "device.push_token_removed"

    /// Every type this version sends, in the order of a call's life.
    public static let known: [WebhookEventType] = [
        .callCreated, .callRinging, .callAccepted, .callDeclined, .callBusy, .callCancelled, .callUnanswered,
        .callEnded, .callFailed, .callLegUpdated, .devicePushTokenRemoved,
    ]

    /// The event a call's state is reached with; nil for `ringing`, which `call.created` or a leg update tells.
    public static func reaching(_ state: CallState) -> WebhookEventType? {
        switch state {
        case .accepted: .callAccepted
        case .declined: .callDeclined
        case .busy: .callBusy
        case .cancelled: .callCancelled
        case .unanswered: .callUnanswered
        case .ended: .callEnded
        case .failed: .callFailed
        default: nil
        }
    }
}

/// The body of a webhook delivery (Standard Webhooks: `{type, timestamp, data}`), as the server sends it.
public struct WebhookPayload: Codable, Hashable, Sendable {
    /// What happened.
    public var type: WebhookEventType
    /// When the change was stored.
    public var timestamp: Date
    /// The event's data.
    public var data: WebhookData

    /// Creates a payload.
    public init(type: WebhookEventType, timestamp: Date, data: WebhookData) {
        self.type = type
        self.timestamp = timestamp
        self.data = data
    }
}

/// What a webhook event carries: the call (its whole record, every leg) with its per-call sequence number, and what
/// the type adds; or, for a device event, the device.
public struct WebhookData: Codable, Hashable, Sendable {
    /// The call after the change; absent on device events.
    public var call: Call?
    /// The call's events numbered 1, 2, 3… in the order they were stored, so a receiver can put in order what
    /// arrived out of order (deliveries are retried, and not in sequence); absent on device events.
    public var seq: Int64?
    /// The user the event is about: the callee whose device rings, the leg's callee, the device's owner.
    public var userID: String?
    /// The device that acknowledged ringing, or whose push token was removed.
    public var deviceID: String?
    /// `call.ended`: milliseconds from the answer to the end.
    public var durationMs: Int64?
    /// `device.push_token_removed`: which of the device's tokens (`voip_token`, `apns_token`, `fcm_token`); never
    /// the token itself.
    public var tokenKind: String?

    /// Creates the data.
    public init(
        call: Call? = nil, seq: Int64? = nil, userID: String? = nil, deviceID: String? = nil,
        durationMs: Int64? = nil, tokenKind: String? = nil
    ) {
        self.call = call
        self.seq = seq
        self.userID = userID
        self.deviceID = deviceID
        self.durationMs = durationMs
        self.tokenKind = tokenKind
    }

    /// The keys as the wire spells them (`user_id`, `device_id`).
    private enum CodingKeys: String, CodingKey {
        case call, seq, durationMs, tokenKind
        case userID = "userId"
        case deviceID = "deviceId"
    }
}

/// `POST /v1/webhooks` and `PUT /v1/webhooks/{endpoint_id}` (an API key with `webhooks:write`): where to send events.
/// A PUT changes the fields it gives and leaves the others as they are.
public struct WebhookEndpointRequest: Codable, Sendable {
    /// Where deliveries are POSTed: `https://…` (`http://` only with `--webhook-allow-http on`). Required to make one.
    public var url: String?
    /// The types to send; empty (or left out when making one) for every type, those added later included.
    public var eventTypes: [WebhookEventType]?
    /// What the endpoint is for, shown in lists (at most 256 characters).
    public var description: String?
    /// False to stop sending without losing the endpoint; true when making one. Enabling a disabled endpoint clears
    /// its `disabled_reason`.
    public var enabled: Bool?

    /// Creates the request.
    public init(url: String, eventTypes: [WebhookEventType]? = nil, description: String? = nil, enabled: Bool? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.enabled = enabled
    }
}

/// A webhook endpoint as the API shows it: never its secret.
public struct WebhookEndpoint: Codable, Hashable, Sendable {
    /// The endpoint's id (`ep_` and 26 characters).
    public var endpointID: String
    /// Where deliveries go.
    public var url: String
    /// The types sent; empty for every type.
    public var eventTypes: [WebhookEventType]
    /// What the endpoint is for.
    public var description: String?
    /// Whether deliveries are made.
    public var enabled: Bool
    /// Why the server disabled it (`gone`: the endpoint answered 410), when it did.
    public var disabledReason: String?
    /// While a rotated-out secret still signs beside the new one (Standard Webhooks: both signatures), until when.
    public var previousSecretExpiresAt: Date?
    /// When it was made.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    /// Creates the record.
    public init(
        endpointID: String, url: String, eventTypes: [WebhookEventType], description: String?, enabled: Bool,
        disabledReason: String? = nil, previousSecretExpiresAt: Date? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.endpointID = endpointID
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.enabled = enabled
        self.disabledReason = disabledReason
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The keys as the wire spells them (`endpoint_id`).
    private enum CodingKeys: String, CodingKey {
        case url, eventTypes, description, enabled, disabledReason, previousSecretExpiresAt, createdAt, updatedAt
        case endpointID = "endpointId"
    }
}

/// The answer to `POST /v1/webhooks` and `POST /v1/webhooks/{endpoint_id}/rotate-secret`: the endpoint and its
/// signing secret, the only times the server shows it.
public struct WebhookEndpointWithSecret: Codable, Sendable {
    /// The endpoint.
    public var endpoint: WebhookEndpoint
    /// `whsec_` and the base64 of 32 random bytes: a Standard Webhooks secret, for the receiver's verifier.
    public var secret: String

    /// Creates the answer.
    public init(endpoint: WebhookEndpoint, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// `POST /v1/webhooks/{endpoint_id}/rotate-secret`: a new secret; the old one keeps signing beside it for a while.
public struct RotateWebhookSecretRequest: Codable, Sendable {
    /// Seconds the old secret still signs (0 to 604800, 86400 by default): long enough to deploy the new one.
    public var previousSecretExpiresInSeconds: Int?

    /// Creates the request.
    public init(previousSecretExpiresInSeconds: Int? = nil) {
        self.previousSecretExpiresInSeconds = previousSecretExpiresInSeconds
    }
}

/// The answer to `GET /v1/webhooks`.
public struct WebhookEndpointList: Codable, Sendable {
    /// Every endpoint, oldest first.
    public var endpoints: [WebhookEndpoint]

    /// Creates the answer.
    public init(endpoints: [WebhookEndpoint]) { self.endpoints = endpoints }
}

/// Where a delivery of one event to one endpoint stands.
public struct WebhookDeliveryState: OpenStringEnum {
    public let rawValue: String
    /// Creates the value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Waiting for its next attempt (the first is at once).
    public static let pending: WebhookDeliveryState = "pending"
    /// The endpoint answered 2xx.
    public static let delivered: WebhookDeliveryState = "delivered"
    /// Every attempt failed, or the endpoint was disabled: redeliver it to try again.
    public static let failed: WebhookDeliveryState = "failed"

    /// Every state.
    public static let known: [WebhookDeliveryState] = [.pending, .delivered, .failed]
}

/// One event's delivery to one endpoint, as `GET /v1/webhooks/{endpoint_id}/deliveries` lists it.
public struct WebhookDelivery: Codable, Hashable, Sendable {
    /// The delivery's id.
    public var deliveryID: Int64
    /// The event's id: the `webhook-id` header, the same on every attempt (the receiver's de-duplication key).
    public var eventID: String
    /// The event's type.
    public var eventType: WebhookEventType
    /// The call the event is about, if any.
    public var callID: String?
    /// Where it stands.
    public var state: WebhookDeliveryState
    /// Attempts made.
    public var attempts: Int
    /// When the next attempt is due (pending only).
    public var nextAttemptAt: Date?
    /// When the last attempt was made.
    public var lastAttemptAt: Date?
    /// The last attempt's HTTP status, when an answer came.
    public var lastStatus: Int?
    /// Why the last attempt failed, in words (a timeout, a refused connection, a private address, a status).
    public var lastError: String?
    /// When it was delivered.
    public var deliveredAt: Date?
    /// When the event was stored.
    public var createdAt: Date

    /// Creates the record.
    public init(
        deliveryID: Int64, eventID: String, eventType: WebhookEventType, callID: String?, state: WebhookDeliveryState,
        attempts: Int, nextAttemptAt: Date?, lastAttemptAt: Date?, lastStatus: Int?, lastError: String?,
        deliveredAt: Date?, createdAt: Date
    ) {
        self.deliveryID = deliveryID
        self.eventID = eventID
        self.eventType = eventType
        self.callID = callID
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.createdAt = createdAt
    }

    /// The keys as the wire spells them (`delivery_id`, `event_id`, `call_id`).
    private enum CodingKeys: String, CodingKey {
        case eventType, state, attempts, nextAttemptAt, lastAttemptAt, lastStatus, lastError, deliveredAt, createdAt
        case deliveryID = "deliveryId"
        case eventID = "eventId"
        case callID = "callId"
    }
}

/// The answer to `GET /v1/webhooks/{endpoint_id}/deliveries`: newest first.
public struct WebhookDeliveryList: Codable, Sendable {
    /// The page.
    public var deliveries: [WebhookDelivery]
    /// Pass it as `cursor` for the next, older page; absent on the last.
    public var nextCursor: String?

    /// Creates the answer.
    public init(deliveries: [WebhookDelivery], nextCursor: String? = nil) {
        self.deliveries = deliveries
        self.nextCursor = nextCursor
    }
}
