import Foundation
import RingerSync

/// Configuration errors APNs reported for the server's own set-up (topic, certificate, key), per
/// environment and topic, for operators: shown by `GET /healthz` and logged once when they start and
/// when they clear, never once per push.
///
/// A configuration error fails every push to that topic the same way, so pushes are not retried
/// (Apple: "Handling notification responses from APNs"); the next accepted push to the topic clears it.
/// Thread-safe.
final class PushSetupHealth: Sendable {
    /// One broken (environment, topic).
    struct Problem: Codable, Hashable, Sendable {
        /// `apns`.
        var provider: String
        /// `sandbox` or `production`.
        var environment: String
        /// The `apns-topic`.
        var topic: String
        /// APNs' reason, e.g. `TopicDisallowed`.
        var reason: String
        /// When it was first seen since the last success.
        var since: Date
        /// Pushes refused for it since then.
        var count: Int
    }

    private let problems = LockedValue<[String: Problem]>([:])

    /// Records a refusal; true when it is new (log it loudly).
    func record(environment: String, topic: String, reason: String, at date: Date) -> Bool {
        problems.withLock { problems in
            let key = environment + " " + topic
            if var known = problems[key], known.reason == reason {
                known.count += 1
                problems[key] = known
                return false
            }
            problems[key] = Problem(provider: "apns", environment: environment, topic: topic, reason: reason,
                                    since: date, count: 1)
            return true
        }
    }

    /// Records an accepted push; returns the problem it cleared, if any.
    func recordSuccess(environment: String, topic: String) -> Problem? {
        problems.withLock { $0.removeValue(forKey: environment + " " + topic) }
    }

    /// The current problems, oldest first.
    var current: [Problem] { problems.withLock { $0.values.sorted { $0.since < $1.since } } }
}
