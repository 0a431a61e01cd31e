import Foundation
import RingerCore
import RingerSupport
import RingerWire

/// What `GET /healthz` says about pushes, per scope (APNs environment and topic, FCM project), for operators:
/// configuration errors the providers reported for the server's own set-up, and provider outages.
///
/// - **Configuration errors** (an APNs topic, certificate or key; an FCM project's credentials or sender) fail
///   every push to that scope the same way, so pushes are not retried (Apple: "Handling notification responses
///   from APNs"; Google: FCM `ErrorCode`); the next accepted push to the scope clears one. ``PushDelivery`` logs
///   them once when they start and when they clear, never once per push. Problems that are not answers to a
///   push (an unreachable FCM token endpoint at start, retried by ``FCMCredentialWatch``) are recorded the same
///   way, as outages.
/// - **Outages**: every send's outcome goes to ``ProviderHealth`` (the rule: three failed sends in a row, or one
///   failed FCM grant, each within 60 s of the last; one answered send or a quiet minute ends it), whose
///   changes this owner logs.
///
/// Thread-safe.
final class PushSetupHealth: Sendable {
    /// What kind of problem a scope has.
    enum Kind: String, Codable, Hashable, Sendable {
        /// The server's own set-up is refused: an operator must fix it; an accepted push clears it.
        case configuration
        /// The provider fails every send (no answer, 5xx, 429, no access token): it clears on its own.
        case outage
    }

    /// One broken scope.
    struct Problem: Codable, Hashable, Sendable {
        /// `apns` or `fcm`.
        var provider: PushProvider
        /// APNs `sandbox` or `production`; absent for FCM.
        var environment: APNsEnvironment?
        /// The `apns-topic`; absent for FCM.
        var topic: String?
        /// The Firebase project id; absent for APNs.
        var project: String?
        /// The provider's reason, e.g. `TopicDisallowed`, `SENDER_ID_MISMATCH`, `ServiceUnavailable`; for an
        /// outage the last failed send's (``unreachable`` when it got no answer).
        var reason: String
        /// Whether an operator must act (`configuration`) or it clears on its own (`outage`).
        var kind: Kind
        /// When it was first seen since the last success.
        var since: Date
        /// Pushes refused (or sends failed, for an outage) for it since then.
        var count: Int
        /// The last transport error or HTTP status, when it says more than the reason.
        var lastError: String?
        /// For an outage: the last failed send; it clears ``ProviderHealth/window`` seconds later if nothing else does.
        var lastFailedAt: Date?
        /// What to check, when the reason points somewhere (the server's clock, the key) (``hint(reason:detail:)``).
        var hint: String?
    }

    /// The reason recorded while a provider cannot be reached (connection refused, TLS failure, no answer).
    static let unreachable = "Unreachable"

    private struct State {
        var problems: [PushScope: Problem] = [:]
        /// The last accepted push per scope.
        var lastSuccess: [PushScope: Date] = [:]
        /// The outage rule, fed with every send (its defaults: three failures in a row, a 60 s window).
        var outages = ProviderHealth<PushScope>()
    }

    private let state = LockedValue(State())
    private let log: Logger

    /// Creates an empty record.
    /// - Parameter log: where outages starting and ending are logged.
    init(log: Logger = .silent()) {
        self.log = log
    }

    /// Records a refusal, or a problem that is not an answer (an FCM token endpoint unreachable at start).
    /// - Parameters:
    ///   - scope: where.
    ///   - reason: the provider's reason.
    ///   - kind: `configuration`, or `outage` for a problem something else keeps trying to clear.
    ///   - detail: the transport error, if any.
    ///   - date: when (server clock).
    /// - Returns: true when it is new (log it loudly).
    func record(
        _ scope: PushScope, reason: String, kind: Kind = .configuration, detail: String? = nil, at date: Date
    ) -> Bool {
        state.withLock { state in
            if var known = state.problems[scope], known.reason == reason {
                known.count += 1
                known.lastError = detail ?? known.lastError
                known.hint = Self.hint(reason: reason, detail: detail) ?? known.hint
                state.problems[scope] = known
                return false
            }
            state.problems[scope] = Problem(
                provider: scope.provider, environment: scope.environment, topic: scope.topic,
                project: scope.project, reason: reason, kind: kind, since: date, count: 1,
                lastError: detail, hint: Self.hint(reason: reason, detail: detail))
            return true
        }
    }

    /// Records what one send showed about its provider (``PushAnswer/providerOutcome``) for the outage rule, and
    /// logs an outage when it starts or ends.
    /// - Parameters:
    ///   - outcome: answered, or failed with the reason.
    ///   - scope: where the send went.
    ///   - date: when it ended (server clock).
    func recordAttempt(_ outcome: ProviderAttemptOutcome, scope: PushScope, at date: Date) {
        let changes = state.withLock { state in
            var changes = state.outages.expire(at: date)
            if let change = state.outages.record(outcome, for: scope, at: date) { changes.append(change) }
            return changes
        }
        report(changes)
    }

    /// What an operator should check for a reason, when it points at one cause: a wrong clock makes APNs
    /// refuse a freshly minted provider token (its `iat` must be within the hour: Apple, "Establishing a
    /// token-based connection to APNs") and makes TLS find the provider's certificate not yet valid or expired.
    /// - Returns: the hint, or nil.
    static func hint(reason: String, detail: String?) -> String? {
        switch reason {
        case "InvalidProviderToken", "ExpiredProviderToken":
            return
                "APNs refused a freshly minted provider token: check --apns-key-id, --apns-team-id and the key file, "
                + "and the server's clock (Apple refuses a token whose iat is not within the last hour)"
        default:
            guard let detail = detail?.lowercased(),
                detail.contains("not yet valid") || detail.contains("certificate has expired")
            else { return nil }
            return "TLS says the provider's certificate is not yet valid or has expired: check the server's clock"
        }
    }

    /// Records an accepted push.
    /// - Parameters:
    ///   - scope: where it was accepted.
    ///   - date: when (server clock).
    /// - Returns: the problem it cleared, if any.
    func recordSuccess(_ scope: PushScope, at date: Date) -> Problem? {
        state.withLock { state in
            state.lastSuccess[scope] = max(state.lastSuccess[scope] ?? date, date)
            return state.problems.removeValue(forKey: scope)
        }
    }

    /// True when a push to `scope` was accepted at or after `date`: the scope's set-up works, so a refusal that
    /// may be a device's own (FCM `SENDER_ID_MISMATCH`) is that device's.
    func hasSucceeded(_ scope: PushScope, since date: Date) -> Bool {
        state.withLock { state in state.lastSuccess[scope].map { $0 >= date } ?? false }
    }

    /// The current problems, oldest first: the configuration errors and the outages at `date`. An outage of a
    /// scope that already shows the same reason (``FCMCredentialWatch``'s grant at start) is shown once.
    /// - Parameter date: now (server clock); outages whose last failure is a minute old end here.
    func current(at date: Date) -> [Problem] {
        let (problems, changes) = state.withLock { state in
            let changes = state.outages.expire(at: date)
            let recorded = state.problems
            let outages = state.outages.outages(at: date)
                .filter { recorded[$0.scope]?.reason != $0.reason }
                .map(Self.problem(of:))
            return ((Array(recorded.values) + outages).sorted { $0.since < $1.since }, changes)
        }
        report(changes)
        return problems
    }

    private static func problem(of outage: ProviderOutage<PushScope>) -> Problem {
        Problem(
            provider: outage.scope.provider, environment: outage.scope.environment, topic: outage.scope.topic,
            project: outage.scope.project, reason: outage.reason, kind: .outage, since: outage.since,
            count: outage.failures, lastError: outage.detail, lastFailedAt: outage.lastFailure, hint: outage.hint)
    }

    /// Logs outages starting (an error, with what to check) and ending (a notice), once each. An outage that ends
    /// by a quiet minute is logged when it is next noticed: by a health check or a send.
    private func report(_ changes: [ProviderHealthChange<PushScope>]) {
        for change in changes {
            switch change {
            case .degraded(let outage):
                var fields = outage.scope.logMetadata.merging([
                    "push.reason": .string(outage.reason),
                    "push.failed_count": .string(String(outage.failures)),
                ]) { $1 }
                if let detail = outage.detail { fields["error"] = .string(detail) }
                if let hint = outage.hint { fields["hint"] = .string(hint) }
                log.error(
                    "\(outage.scope.provider) fails every send; calls to its devices do not ring until it answers "
                        + "(/healthz degraded)", fields)
            case .recovered(let outage, .answered):
                log.log(
                    .notice, "\(outage.scope.provider) answers again",
                    outage.scope.logMetadata.merging(
                        ["push.failed_count": .string(String(outage.failures))]) { $1 })
            case .recovered(let outage, .quiet):
                log.log(
                    .notice,
                    "\(outage.scope.provider): no send failed for a minute; "
                        + "/healthz no longer reports the outage (nothing was sent since to tell whether it is over)",
                    outage.scope.logMetadata.merging(["push.failed_count": .string(String(outage.failures))]) { $1 })
            }
        }
    }
}
