import Foundation
import RingerSync
import RingerWire

/// Configuration errors the push providers reported for the server's own set-up (an APNs topic,
/// certificate or key; an FCM project's credentials or sender), per scope, for operators: shown by
/// `GET /healthz` and logged once when they start and when they clear, never once per push.
///
/// A configuration error fails every push to that scope the same way, so pushes are not retried
/// (Apple: "Handling notification responses from APNs"; Google: FCM `ErrorCode`); the next accepted push
/// to the scope clears it. Problems that are not answers to a push (an unreachable FCM token endpoint at
/// start) are recorded the same way. Thread-safe.
final class PushSetupHealth: Sendable {
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
        /// The provider's reason, e.g. `TopicDisallowed`, `SENDER_ID_MISMATCH`.
        var reason: String
        /// When it was first seen since the last success.
        var since: Date
        /// Pushes refused for it since then.
        var count: Int
        /// The last transport error, for ``unreachable``.
        var lastError: String?
        /// What to check, when the reason points somewhere (the server's clock, the key) (``hint(reason:detail:)``).
        var hint: String?
    }

    /// The reason recorded while a provider cannot be reached (connection refused, TLS failure, no answer).
    static let unreachable = "Unreachable"

    private struct State {
        var problems: [PushScope: Problem] = [:]
        /// The last accepted push per scope.
        var lastSuccess: [PushScope: Date] = [:]
    }

    private let state = LockedValue(State())

    /// Records a refusal, or with ``unreachable`` a send that got no answer.
    /// - Parameters:
    ///   - scope: where.
    ///   - reason: the provider's reason, or ``unreachable``.
    ///   - detail: the transport error, for ``unreachable``.
    ///   - date: when (server clock).
    /// - Returns: true when it is new (log it loudly).
    func record(_ scope: PushScope, reason: String, detail: String? = nil, at date: Date) -> Bool {
        state.withLock { state in
            if var known = state.problems[scope], known.reason == reason {
                known.count += 1
                known.lastError = detail ?? known.lastError
                known.hint = Self.hint(reason: reason, detail: detail) ?? known.hint
                state.problems[scope] = known
                return false
            }
            state.problems[scope] = Problem(provider: scope.provider, environment: scope.environment, topic: scope.topic,
                                            project: scope.project, reason: reason, since: date, count: 1, lastError: detail,
                                            hint: Self.hint(reason: reason, detail: detail))
            return true
        }
    }

    /// What an operator should check for a reason, when it points at one cause: a wrong clock makes APNs
    /// refuse a freshly minted provider token (its `iat` must be within the hour: Apple, "Establishing a
    /// token-based connection to APNs") and makes TLS find the provider's certificate not yet valid or expired.
    /// - Returns: the hint, or nil.
    static func hint(reason: String, detail: String?) -> String? {
        switch reason {
        case "InvalidProviderToken", "ExpiredProviderToken":
            return "APNs refused a freshly minted provider token: check --apns-key-id, --apns-team-id and the key file, "
                + "and the server's clock (Apple refuses a token whose iat is not within the last hour)"
        default:
            guard let detail = detail?.lowercased(),
                  detail.contains("not yet valid") || detail.contains("certificate has expired") else { return nil }
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

    /// The current problems, oldest first.
    var current: [Problem] { state.withLock { $0.problems.values.sorted { $0.since < $1.since } } }
}
