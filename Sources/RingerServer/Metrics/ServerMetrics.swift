import Foundation
import RingerCore
import RingerStore
import RingerWire

/// What `GET /metrics` serves (docs/operations.md, "Metrics"): the server's own counts since it started, fed by its
/// ``ServerObservation``s, the router's refusals and the store's timings, and a few gauges read when scraped. Each
/// server counts what it did; Prometheus sums a cluster's servers.
final class ServerMetrics: Sendable {
    typealias Family = MetricsRegistry.Family

    static let callsCreated = Family.counter("ringer_calls_created_total", "Calls this server placed.")
    static let calls = Family.counter(
        "ringer_calls_total",
        "Calls that reached their outcome on this server: answered (ended after an answer), declined, cancelled, "
            + "unanswered, busy or failed.", labels: ["outcome"])
    static let callSeconds: [Double] = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 45, 60, 120]
    static let ringing = Family.histogram(
        "ringer_call_ringing_seconds",
        "From a call's creation to the first ringing acknowledgement of a callee's device.", buckets: callSeconds)
    static let answer = Family.histogram(
        "ringer_call_answer_seconds", "From a call's creation to its answer.", buckets: callSeconds)
    static let pushes = Family.counter(
        "ringer_pushes_total",
        "Pushes by provider, HTTP status (`none` when no answer came) and the provider's reason (`none` without one).",
        labels: ["provider", "status", "reason"])
    static let pushSeconds = Family.histogram(
        "ringer_push_seconds", "From a push's send to the provider's answer, retries included.",
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], labels: ["provider"])
    static let deadTokens = Family.counter(
        "ringer_dead_tokens_removed_total", "Push tokens removed because the provider reported them dead.",
        labels: ["provider"])
    static let webhookAttempts = Family.counter(
        "ringer_webhook_attempts_total",
        "Webhook delivery attempts by result: delivered, retrying (failed, tried again later), failed (the last "
            + "attempt failed), gone (the endpoint answered 410 and was disabled), postponed (this server cannot open "
            + "the endpoint's secret: nothing sent).", labels: ["result"])
    static let webhookSeconds = Family.histogram(
        "ringer_webhook_attempt_seconds", "How long a webhook delivery attempt took.",
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60])
    static let webhookOldest = Family.gauge(
        "ringer_webhook_oldest_pending_seconds",
        "Age of the oldest event still waiting for a webhook delivery; 0 when none waits (the whole cluster's).")
    static let sockets = Family.gauge("ringer_event_sockets", "Event-stream WebSockets open on this server.")
    static let rateLimited = Family.counter(
        "ringer_rate_limit_refusals_total", "Requests a rate limit refused, by limit (docs/security.md).",
        labels: ["limit"])
    static let store = Family.histogram(
        "ringer_store_operation_seconds", "How long each database operation took, waits for a connection included.",
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])

    let registry = MetricsRegistry(families: [
        callsCreated, calls, ringing, answer, pushes, pushSeconds, deadTokens, webhookAttempts, webhookSeconds,
        webhookOldest, sockets, rateLimited, store,
    ])

    /// Counts what the server did.
    func record(_ observation: ServerObservation) {
        switch observation {
        case .callStored(let call, let effects, let created):
            recordCall(call, effects: effects, created: created)
        case .pushSent(let attempt):
            let provider = attempt.provider.rawValue
            registry.add(
                Self.pushes, [provider, attempt.status.map(String.init) ?? "none", Self.label(attempt.reason)])
            registry.observe(Self.pushSeconds, [provider], attempt.latencyMs / 1000)
        case .deadTokenRemoved(let provider):
            registry.add(Self.deadTokens, [provider.rawValue])
        case .webhookAttempt(let outcome, let seconds):
            let result =
                switch outcome {
                case .delivered: "delivered"
                case .failed(_, _, let retryAt): retryAt == nil ? "failed" : "retrying"
                case .endpointGone: "gone"
                case .postponed: "postponed"
                }
            registry.add(Self.webhookAttempts, [result])
            registry.observe(Self.webhookSeconds, [], seconds)
        case .callCreated, .callEvent, .ringTimeoutFired:
            break
        }
    }

    /// A call's change as the machine told it: its creation, its first ringing (the machine tells the caller
    /// `call.ringing` once), its answer (it starts watching the call), and the outcome it reached.
    private func recordCall(_ call: Call, effects: [CallEffect], created: Bool) {
        if created { registry.add(Self.callsCreated) }
        guard created || !effects.isEmpty else { return }
        let now = Date()
        for effect in effects {
            switch effect {
            case .publish(.callRinging, _):
                registry.observe(Self.ringing, [], max(0, now.timeIntervalSince(call.createdAt)))
            case .watchAcceptedCall(let acceptedAt):
                registry.observe(Self.answer, [], max(0, acceptedAt.timeIntervalSince(call.createdAt)))
            default:
                continue
            }
        }
        guard !call.state.isLive else { return }
        registry.add(Self.calls, [call.state == .ended ? "answered" : call.state.rawValue])
    }

    /// A request a rate limit refused.
    func refused(by limit: RateLimitSettings.Limit) {
        registry.add(Self.rateLimited, [limit.rawValue.replacingOccurrences(of: "rate-limit-", with: "")])
    }

    /// One store operation's duration.
    func storeOperation(seconds: TimeInterval) {
        registry.observe(Self.store, [], seconds)
    }

    /// The exposition, with the gauges read now.
    /// - Parameter oldestPendingWebhook: the oldest waiting event's time, `.some(nil)` when none waits, nil when the
    ///   database did not say: the sample is then left out rather than shown as 0, which would hide the outage.
    func render(sockets: Int, oldestPendingWebhook: Date??, now: Date) -> String {
        registry.set(Self.sockets, [], Double(sockets))
        if let oldest = oldestPendingWebhook {
            registry.set(Self.webhookOldest, [], oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        } else {
            registry.remove(Self.webhookOldest, [])
        }
        return registry.render()
    }

    /// A provider's reason as a label: letters, digits and `_` only, at most 64 (a reason is the provider's word,
    /// from a small set; anything else must not make a new series per request).
    private static func label(_ reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "none" }
        let kept = reason.unicodeScalars.prefix(64).filter {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
        }
        return kept.isEmpty ? "other" : String(String.UnicodeScalarView(kept))
    }
}
