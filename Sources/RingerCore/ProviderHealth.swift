public import Foundation

/// What one send to a push provider showed about the provider itself, as ``ProviderHealth`` reads it.
public enum ProviderAttemptOutcome: Sendable, Hashable {
    /// The provider answered in a way that shows it works: it accepted the push, or refused it for a reason of
    /// the device's or the server's own (a dead token, a configuration error). Ends an outage at once.
    case answered
    /// The send failed in a way that is the provider's, not the device's: no answer (connection refused, TLS
    /// failure, timeout), a 5xx, a 429, or no credential to send with (FCM's token endpoint).
    case failed(ProviderFailure)
}

/// One failed send, as ``ProviderHealth`` keeps it.
public struct ProviderFailure: Sendable, Hashable {
    /// The provider's reason (`ServiceUnavailable`, `InternalServerError`, `TooManyRequests`, `UNAVAILABLE`,
    /// `INTERNAL`, `QUOTA_EXCEEDED`), or the owner's name for a failure without an answer (`Unreachable`,
    /// `TokenEndpointUnreachable`); `/healthz` shows the last one of a run.
    public var reason: String
    /// For operators: the HTTP status or the transport error; never secret.
    public var detail: String?
    /// What an operator should check, when the failure points at one cause (the server's clock); kept for the
    /// rest of the run once seen, because such failures may alternate with plain connection refusals.
    public var hint: String?
    /// True when this one failure already shows that every send to the scope fails for now, so the scope is
    /// degraded at once instead of after ``ProviderHealth/minimumFailures``: FCM's access token could not be had
    /// (one grant serves every message of a project, so without it no message can be sent at all).
    public var isConclusive: Bool

    /// Creates a failure.
    /// - Parameters:
    ///   - reason: the provider's reason or the owner's name for it.
    ///   - detail: the status or transport error.
    ///   - hint: what to check, when known.
    ///   - isConclusive: true when one such failure means every send to the scope fails.
    public init(reason: String, detail: String? = nil, hint: String? = nil, isConclusive: Bool = false) {
        self.reason = reason
        self.detail = detail
        self.hint = hint
        self.isConclusive = isConclusive
    }
}

/// A scope whose every recent send failed.
public struct ProviderOutage<Scope: Hashable & Sendable>: Sendable, Hashable {
    /// Where (for Ringer: an APNs environment and topic, or an FCM project).
    public var scope: Scope
    /// The last failure's reason.
    public var reason: String
    /// The last failure's detail.
    public var detail: String?
    /// The last hint seen in the run.
    public var hint: String?
    /// The first failure of the run (no send to the scope was answered since).
    public var since: Date
    /// The last failure; the outage is forgotten ``ProviderHealth/window`` seconds after it.
    public var lastFailure: Date
    /// Failed sends in the run, at least 1.
    public var failures: Int

    /// Creates an outage (``ProviderHealth`` makes them; tests compare with them).
    /// - Parameters:
    ///   - scope: where.
    ///   - reason: the last failure's reason.
    ///   - detail: the last failure's detail.
    ///   - hint: the last hint seen in the run.
    ///   - since: the run's first failure.
    ///   - lastFailure: the run's last failure.
    ///   - failures: failed sends in the run.
    public init(
        scope: Scope, reason: String, detail: String?, hint: String?, since: Date, lastFailure: Date, failures: Int
    ) {
        self.scope = scope
        self.reason = reason
        self.detail = detail
        self.hint = hint
        self.since = since
        self.lastFailure = lastFailure
        self.failures = failures
    }
}

/// What changed for one scope after an input, for the owner to log (the machine itself does no I/O).
public enum ProviderHealthChange<Scope: Hashable & Sendable>: Sendable, Hashable {
    /// Why a scope is no longer degraded.
    public enum Recovery: Sendable, Hashable {
        /// A send to it was answered.
        case answered
        /// No send to it failed for ``ProviderHealth/window`` seconds (and none was answered either).
        case quiet
    }

    /// The scope has just become degraded.
    case degraded(ProviderOutage<Scope>)
    /// The scope is no longer degraded; the outage as it last was.
    case recovered(ProviderOutage<Scope>, Recovery)
}

/// Decides whether a push provider is down, per scope, from the outcome of each send and the time: a scope is
/// `degraded` once every recent send to it failed, and recovers by itself. A pure value (input and the time in,
/// state and changes out; no lock, no clock of its own): its owner serialises access, supplies the time and
/// logs the changes.
///
/// The rule, per scope:
/// - A **run** is the failed sends since the last answered one, each less than ``window`` seconds after the
///   one before. A send the provider answers (accepted it, or refused it for the device's or the server's own
///   reason) ends the run: the provider works. A failure more than ``window`` seconds after the run's last one
///   starts a new run.
/// - The scope is **degraded** while its run holds at least ``minimumFailures`` failures, or one conclusive
///   failure (``ProviderFailure/isConclusive``), and its last failure is less than ``window`` seconds old.
/// - It **recovers** when a send is answered, or when ``window`` seconds pass after the last failure with
///   no send failing meanwhile.
///
/// Why these numbers (the defaults): a single 5xx, 429, reset connection or timeout is routine, and Apple and
/// Google tell senders to retry it (Apple: "Handling notification responses from APNs"; Google: "FCM HTTP v1
/// API: error handling"), so one proves nothing. Three in a row, with no answered send from any device in
/// between, is what one ringing push sees when the provider refuses it for about a second (Ringer retries after
/// 0.25-0.5 s and 0.5-1 s), and what a busy server almost never sees by chance (any working send in between
/// ends the run; a 429 for one hot device token among working sends never degrades). Sixty seconds is longer
/// than any wait between two sends of one ring (at most 8 s, or a `Retry-After` that still fits the ring), so
/// an outage does not flap to `ok` between retries, and short enough that a quiet server stops reporting an
/// outage nobody has seen for a minute.
///
/// Why it recovers without an answered send: health reports what the server knows now. With no send for
/// ``window`` seconds it knows as much as at start (no sends, `ok`); keeping `degraded` until the next call,
/// which may be hours away on a small server, would report an outage that may have ended long ago and teach
/// operators to ignore `degraded`. The failed sends stay on their calls (`GET /v1/calls/{id}/pushes`) and in
/// the log.
public struct ProviderHealth<Scope: Hashable & Sendable>: Sendable {
    /// Failures in a run that make its scope degraded, at least 1; default 3.
    public let minimumFailures: Int
    /// Seconds a failure counts as recent, more than 0; default 60.
    public let window: TimeInterval

    private struct Run: Sendable {
        var outage: ProviderOutage<Scope>
        var conclusive: Bool
        /// True once ``ProviderHealthChange/degraded(_:)`` was returned for this run and no recovery since.
        var announced: Bool
    }

    private var runs: [Scope: Run] = [:]

    /// Creates a machine that knows of no failure.
    /// - Parameters:
    ///   - minimumFailures: failures in a row that make a scope degraded, at least 1.
    ///   - window: seconds a failure stays recent, more than 0.
    public init(minimumFailures: Int = 3, window: TimeInterval = 60) {
        precondition(minimumFailures >= 1 && window > 0, "ProviderHealth needs minimumFailures >= 1 and window > 0")
        self.minimumFailures = minimumFailures
        self.window = window
    }

    /// Takes one send's outcome.
    /// - Parameters:
    ///   - outcome: what the send showed.
    ///   - scope: where it went.
    ///   - now: when it ended (the owner's clock, the same for every call).
    /// - Returns: the scope's change, if any: `degraded` the first time a run crosses the line, `recovered` when
    ///   an answer ends an announced run (or a failure finds it stale and starts a run that is not degraded).
    public mutating func record(
        _ outcome: ProviderAttemptOutcome, for scope: Scope, at now: Date
    ) -> ProviderHealthChange<Scope>? {
        let previous = runs[scope]
        guard case .failed(let failure) = outcome else {
            runs[scope] = nil
            guard let previous, previous.announced else { return nil }
            return .recovered(previous.outage, .answered)
        }
        var run: Run
        if let previous, isFresh(previous, at: now) {
            run = previous
            run.outage.reason = failure.reason
            run.outage.detail = failure.detail
            run.outage.hint = failure.hint ?? run.outage.hint
            run.outage.lastFailure = now
            run.outage.failures += 1
            run.conclusive = run.conclusive || failure.isConclusive
        } else {
            run = Run(
                outage: ProviderOutage(
                    scope: scope, reason: failure.reason, detail: failure.detail, hint: failure.hint,
                    since: now, lastFailure: now, failures: 1),
                conclusive: failure.isConclusive, announced: previous?.announced ?? false)
        }
        let degraded = isDegraded(run)
        var change: ProviderHealthChange<Scope>?
        if degraded, !run.announced {
            change = .degraded(run.outage)
        } else if !degraded, run.announced, let previous {
            // Only a stale run was announced: its outage was over before this new failure.
            change = .recovered(previous.outage, .quiet)
        }
        run.announced = degraded
        runs[scope] = run
        return change
    }

    /// Forgets the runs whose last failure is ``window`` seconds old or older.
    /// - Parameter now: the owner's time.
    /// - Returns: one `recovered(…, .quiet)` per scope that was degraded, oldest outage first.
    public mutating func expire(at now: Date) -> [ProviderHealthChange<Scope>] {
        // Every push's outcome comes here; with no failure held (a healthy server) there is nothing to look at, and
        // the filters below would still build and sort empty collections (1.8 % of a call's CPU, issue 33).
        guard !runs.isEmpty else { return [] }
        let stale = runs.filter { !isFresh($0.value, at: now) }
        for scope in stale.keys { runs[scope] = nil }
        return stale.values.filter(\.announced).map(\.outage).sorted { $0.since < $1.since }.map {
            .recovered($0, .quiet)
        }
    }

    /// The scopes degraded at `now`, oldest outage first. Reads only: a stale run is left for ``expire(at:)``.
    /// - Parameter now: the owner's time.
    public func outages(at now: Date) -> [ProviderOutage<Scope>] {
        runs.values.filter { isDegraded($0) && isFresh($0, at: now) }.map(\.outage).sorted { $0.since < $1.since }
    }

    /// Scopes with a run (degraded or not) held now: at most those that failed within the last ``window``
    /// seconds, once ``expire(at:)`` ran.
    public var scopeCount: Int { runs.count }

    private func isFresh(_ run: Run, at now: Date) -> Bool {
        now.timeIntervalSince(run.outage.lastFailure) < window
    }

    private func isDegraded(_ run: Run) -> Bool {
        run.conclusive || run.outage.failures >= minimumFailures
    }
}
