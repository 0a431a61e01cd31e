import Foundation
import RingerCore
import RingerSupport
import RingerWire

/// What the server does after one send, whatever the provider: each sender maps its provider's answers
/// onto these (APNs: `APNsResponseAction`, docs/apns.md; FCM: `FCMResponseAction`, docs/fcm.md), and
/// ``PushDelivery`` carries them out.
enum PushAction: Sendable, Hashable {
    /// The provider accepted the push (not a delivery receipt).
    case accepted
    /// Sending again later may succeed: within the deadline, wait `after` seconds when the provider said
    /// so (`Retry-After`), else back off exponentially with jitter (``PushRetryPolicy``).
    case retry(after: TimeInterval?)
    /// The token is dead: delete it unless the app registered it again after `invalidSince` (the
    /// provider's timestamp; nil means "when this push was sent"). Compare-and-delete.
    case removeToken(invalidSince: Date?)
    /// The token was refused in a way the app's next registration fixes (wrong environment or app):
    /// keep it and mark the device.
    case flagDevice
    /// The server's own set-up is wrong (credentials, topic, project): every push to this scope fails
    /// the same way until an operator fixes it. Shown by `/healthz`, logged once.
    case configurationError
    /// A request Ringer built wrongly: a bug, logged as an error, never retried.
    case invalidRequest

    /// True for ``retry(after:)``.
    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }
}

/// Where a configuration error applies, for `/healthz`: an APNs environment and topic, or an FCM project.
struct PushScope: Sendable, Hashable {
    /// `apns` or `fcm`.
    var provider: PushProvider
    /// APNs `sandbox` or `production`; nil for FCM.
    var environment: APNsEnvironment?
    /// The `apns-topic`; nil for FCM.
    var topic: String?
    /// The Firebase project id; nil for APNs.
    var project: String?

    /// `apns.environment`, `apns.topic` or `fcm.project`, for log lines about the scope.
    var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        if let environment { metadata["apns.environment"] = .string(environment.rawValue) }
        if let topic { metadata["apns.topic"] = .string(topic) }
        if let project { metadata["fcm.project"] = .string(project) }
        return metadata
    }
}

/// The outcome of one send (a provider's own resends included), mapped to a ``PushAction``.
struct PushAnswer: Sendable {
    /// The provider's HTTP status; nil when no answer came (transport failure, timeout).
    var status: Int?
    /// The provider's reason or error code (`BadDeviceToken`, `UNREGISTERED`), or what went wrong in words.
    var reason: String?
    /// What to do about it.
    var action: PushAction
    /// HTTP requests this send made.
    var requests: Int
    /// The provider's id of the accepted message (FCM's `name`); APNs' `apns-id` is the request's own.
    var messageName: String? = nil
    /// The `/healthz` reason to record instead of `reason` for a configuration error that is not an
    /// answer (a refused client certificate).
    var healthReason: String? = nil
    /// A message for operators to log as an error with this answer (APNs throttling provider tokens).
    var operatorAlert: String? = nil
    /// True when a configuration error may also be this device's own (FCM `SENDER_ID_MISMATCH`: the token
    /// may come from another Firebase project than the one it was sent through): the device is marked (its
    /// next registration clears the mark), and the scope is reported in `/healthz` only when it has accepted
    /// no push in the last hour (otherwise its set-up evidently works and the refusal is the device's).
    var marksDevice = false
    /// Set when nothing could be sent because no credential could be had from the provider (FCM's token endpoint
    /// did not answer in time, or answered 429 or 5xx): the `/healthz` reason. One such send is a conclusive
    /// outage of the scope (``ProviderFailure/isConclusive``): one grant serves every message of a project.
    var credentialOutage: String? = nil

    /// What this send showed about the provider itself, for the outage rule (``ProviderHealth``); nil when it
    /// reached no provider (its deadline passed before it was sent, Ringer refused its own message, a bug).
    ///
    /// Failed: no access token (``credentialOutage``); no answer to a request that was made (connection refused,
    /// TLS failure, timeout: ``PushSetupHealth/unreachable``); 429 or 5xx, under the provider's reason (APNs:
    /// `TooManyRequests`, `InternalServerError`, `ServiceUnavailable`; FCM: `QUOTA_EXCEEDED`, `INTERNAL`,
    /// `UNAVAILABLE`), which both providers document as "try again later" (docs/apns.md, docs/fcm.md). Any other
    /// answer, a refusal included, shows that the provider works.
    var providerOutcome: ProviderAttemptOutcome? {
        if let credentialOutage {
            return .failed(ProviderFailure(reason: credentialOutage, detail: reason, isConclusive: true))
        }
        guard requests > 0 else { return nil }
        guard let status else {
            switch action {
            case .retry:
                return .failed(
                    ProviderFailure(
                        reason: PushSetupHealth.unreachable, detail: reason,
                        hint: PushSetupHealth.hint(reason: PushSetupHealth.unreachable, detail: reason)))
            // A client certificate refused in the TLS handshake: the provider answered, about the set-up.
            case .configurationError: return .answered
            default: return nil
            }
        }
        guard status == 429 || (500...599).contains(status) else { return .answered }
        return .failed(ProviderFailure(reason: reason ?? "HTTP \(status)", detail: "HTTP \(status)"))
    }
}
