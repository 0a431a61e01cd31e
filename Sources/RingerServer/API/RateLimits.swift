import Foundation
import RingerCore
import RingerHTTP
import RingerSupport
import RingerWire

/// The server's named rate limits (docs/security.md "Rate limits"), each a number of events per minute per
/// key; 0 switches one off. Limits are per server process: several nodes behind one balancer each allow the
/// full amount.
public struct RateLimitSettings: Sendable, Equatable {
    /// Calls one caller may place per minute (`--rate-limit-calls-per-minute`).
    public var callsPerCallerPerMinute = 30
    /// Calls one caller may place to one callee per minute (`--rate-limit-calls-to-one-callee-per-minute`):
    /// each rings every device of the callee, so this is what keeps a phone from being rung dozens of times.
    public var callsToOneCalleePerMinute = 10
    /// Calls one callee may be rung by per minute, from all callers together
    /// (`--rate-limit-calls-per-callee-per-minute`): the per-caller limits alone let many accounts ring one phone
    /// hundreds of times a minute.
    public var callsPerCalleePerMinute = 30
    /// `PUT` and `DELETE /v1/devices/{id}` requests of one user per minute (`--rate-limit-device-changes-per-minute`).
    public var deviceChangesPerUserPerMinute = 20
    /// Credentials that fail to verify, per client address per minute (`--rate-limit-auth-failures-per-minute`);
    /// past it the address's requests with credentials are refused unchecked until the budget refills.
    public var authFailuresPerAddressPerMinute = 60
    /// Calls to user ids that do not exist, per caller and per client address per minute
    /// (`--rate-limit-unknown-callees-per-minute`); past it every call attempt of that caller or address is
    /// refused until the budget refills, so the refusal itself says nothing about the callee.
    public var unknownCalleesPerMinute = 20
    /// Authenticated reads (`GET` and `HEAD` of the API but `/v1/events`) of one user per minute
    /// (`--rate-limit-reads-per-minute`): one user listing calls in a loop slowed every other user's requests.
    public var readsPerUserPerMinute = 300
    /// Event-stream connections (`GET /v1/events` upgrades) of one user per minute
    /// (`--rate-limit-event-stream-connects-per-minute`): each replays up to 500 events, and four loops
    /// reconnecting with `?since=0` raised another user's latency 35 times.
    public var eventStreamConnectsPerUserPerMinute = 60

    /// The defaults: far above what people placing calls by hand ever reach.
    public init() {}

    /// One named limit: its flag (named in every refusal, so an operator knows what to raise) and what it counts.
    public enum Limit: String, Sendable, CaseIterable {
        /// ``RateLimitSettings/callsPerCallerPerMinute``.
        case calls = "rate-limit-calls-per-minute"
        /// ``RateLimitSettings/callsToOneCalleePerMinute``.
        case callsToOneCallee = "rate-limit-calls-to-one-callee-per-minute"
        /// ``RateLimitSettings/callsPerCalleePerMinute``.
        case callsPerCallee = "rate-limit-calls-per-callee-per-minute"
        /// ``RateLimitSettings/deviceChangesPerUserPerMinute``.
        case deviceChanges = "rate-limit-device-changes-per-minute"
        /// ``RateLimitSettings/authFailuresPerAddressPerMinute``.
        case authFailures = "rate-limit-auth-failures-per-minute"
        /// ``RateLimitSettings/unknownCalleesPerMinute``.
        case unknownCallees = "rate-limit-unknown-callees-per-minute"
        /// ``RateLimitSettings/readsPerUserPerMinute``.
        case reads = "rate-limit-reads-per-minute"
        /// ``RateLimitSettings/eventStreamConnectsPerUserPerMinute``.
        case eventStreamConnects = "rate-limit-event-stream-connects-per-minute"

        /// What the limit counts, for the configuration reference.
        public var help: String {
            switch self {
            case .calls: "Calls one caller may place per minute."
            case .callsToOneCallee: "Calls one caller may place to one callee per minute."
            case .callsPerCallee: "Calls that may ring one callee per minute, from all callers together."
            case .deviceChanges: "Device registrations and removals of one user per minute."
            case .authFailures:
                "Failed credentials per client address (an IPv6 /64) per minute; past it the address's requests "
                    + "with credentials are refused unchecked."
            case .unknownCallees: "Calls to user ids that do not exist, per caller and per client address per minute."
            case .reads: "`GET` and `HEAD` requests of one user per minute (the event stream aside)."
            case .eventStreamConnects: "Event-stream connections of one user per minute."
            }
        }

        /// The setting the flag sets.
        public var setting: WritableKeyPath<RateLimitSettings, Int> {
            switch self {
            case .calls: \.callsPerCallerPerMinute
            case .callsToOneCallee: \.callsToOneCalleePerMinute
            case .callsPerCallee: \.callsPerCalleePerMinute
            case .deviceChanges: \.deviceChangesPerUserPerMinute
            case .authFailures: \.authFailuresPerAddressPerMinute
            case .unknownCallees: \.unknownCalleesPerMinute
            case .reads: \.readsPerUserPerMinute
            case .eventStreamConnects: \.eventStreamConnectsPerUserPerMinute
            }
        }
    }

    /// Every limit off (benchmarks, load tests).
    public static let off: RateLimitSettings = {
        var settings = RateLimitSettings()
        settings.callsPerCallerPerMinute = 0
        settings.callsToOneCalleePerMinute = 0
        settings.callsPerCalleePerMinute = 0
        settings.deviceChangesPerUserPerMinute = 0
        settings.authFailuresPerAddressPerMinute = 0
        settings.unknownCalleesPerMinute = 0
        settings.readsPerUserPerMinute = 0
        settings.eventStreamConnectsPerUserPerMinute = 0
        return settings
    }()
}

/// A request refused by a rate limit: answered 429 `rate-limited` with `Retry-After` (RFC 6585 §4,
/// RFC 9110 §10.2.3).
struct RateLimitExceeded: Error {
    /// The limit that refused.
    let limit: RateLimitSettings.Limit
    /// The problem+json body.
    let problem: Problem
    /// Whole seconds until the limit lets one more through.
    let retryAfter: Int

    /// The 429 response, `Retry-After` included.
    var response: HTTPResponse {
        APIProblem.response(problem, headers: [("retry-after", String(retryAfter))])
    }
}

/// The one place the rate-limit rules live: which limit applies at which point, keyed by what.
///
/// Holds a ``RateLimiter`` per enabled limit behind one lock; the server's clock supplies the time.
/// Thread-safe; the WebSocket upgrade calls it on the libwebsockets thread, so nothing here waits.
final class RateLimits: Sendable {
    private struct Pair: Hashable, Sendable {
        let caller: String
        let callee: String
    }

    private struct State: Sendable {
        var calls: RateLimiter<String>?
        var callsToOneCallee: RateLimiter<Pair>?
        var callsPerCallee: RateLimiter<String>?
        var deviceChanges: RateLimiter<String>?
        var authFailures: RateLimiter<String>?
        var unknownCallees: RateLimiter<String>?
        var reads: RateLimiter<String>?
        var eventStreamConnects: RateLimiter<String>?
    }

    let settings: RateLimitSettings
    /// Finds the client address behind a proxy.
    let resolver: ClientAddressResolver
    private let state: LockedValue<State>
    private let clock: any ServerClock

    /// - Parameters:
    ///   - settings: the limits per minute; 0 disables one.
    ///   - trustedProxies: the proxies whose `X-Forwarded-For` is believed.
    ///   - clock: the server's clock.
    init(settings: RateLimitSettings, trustedProxies: [AddressRange], clock: any ServerClock) {
        func limiter<Key>(_ limit: Int) -> RateLimiter<Key>? { limit > 0 ? RateLimiter(limit: limit) : nil }
        self.settings = settings
        resolver = ClientAddressResolver(trusted: trustedProxies)
        self.clock = clock
        state = LockedValue(
            State(
                calls: limiter(settings.callsPerCallerPerMinute),
                callsToOneCallee: limiter(settings.callsToOneCalleePerMinute),
                callsPerCallee: limiter(settings.callsPerCalleePerMinute),
                deviceChanges: limiter(settings.deviceChangesPerUserPerMinute),
                authFailures: limiter(settings.authFailuresPerAddressPerMinute),
                unknownCallees: limiter(settings.unknownCalleesPerMinute),
                reads: limiter(settings.readsPerUserPerMinute),
                eventStreamConnects: limiter(settings.eventStreamConnectsPerUserPerMinute)))
    }

    /// The key per-address limits count a request under (its client's address, an IPv6 client's /64);
    /// nil when the server cannot tell the peer (then per-address limits do not apply).
    func addressKey(of request: HTTPRequest) -> String? {
        resolver.client(peer: request.remoteAddress, forwardedFor: request.headers["x-forwarded-for"])?.limitKey
    }

    // MARK: Authentication

    /// Refuses an address that failed to authenticate too often, before its credentials are checked (so a
    /// guess is refused whether or not it is right).
    /// - Throws: ``RateLimitExceeded``.
    func admitCredentials(from address: String?) throws {
        guard let address else { return }
        let now = clock.now()
        let decision = state.withLock { $0.authFailures?.check(address, now: now) ?? .allowed }
        try refuse(
            decision, .authFailures,
            "too many failed authentications from this address (more than \(settings.authFailuresPerAddressPerMinute) a minute)"
        )
    }

    /// Counts credentials from `address` that did not verify.
    func credentialsFailed(from address: String?) {
        guard let address else { return }
        let now = clock.now()
        state.withLock { $0.authFailures?.record(address, now: now) }
    }

    // MARK: Calls

    /// Refuses a caller (or address) that asked for too many unknown callees, before the callee is looked up.
    /// - Throws: ``RateLimitExceeded``.
    func admitCalleeLookup(caller: String, address: String?) throws {
        let now = clock.now()
        let decision = state.withLock { state -> RateLimitDecision in
            guard let limiter = state.unknownCallees else { return .allowed }
            return Self.longer(
                limiter.check("user:" + caller, now: now),
                address.map { limiter.check("address:" + $0, now: now) } ?? .allowed)
        }
        try refuse(
            decision, .unknownCallees,
            "too many calls to unknown users from this caller or address (more than \(settings.unknownCalleesPerMinute) a minute)"
        )
    }

    /// Counts a call to a user id that does not exist against the caller and the address.
    /// - Parameter cost: units spent: 1 for a 1:1 call; for a refused group list, every id in it (the refusal names the
    ///   unknown ones, so it tells the others exist).
    func calleeUnknown(caller: String, address: String?, cost: Int = 1) {
        let now = clock.now()
        state.withLock { state in
            state.unknownCallees?.record("user:" + caller, now: now, cost: cost)
            if let address { state.unknownCallees?.record("address:" + address, now: now, cost: cost) }
        }
    }

    /// Spends one call of `caller`, one of the pair (`caller`, `callee`) and one of `callee`, or none.
    /// - Parameters:
    ///   - exemptFromCalleeBudget: the caller and callee have talked before (a call between them was answered), so
    ///     the callee's budget, which is there against strangers flooding the callee, does not hold them back: those
    ///     strangers could otherwise lock the callee's contacts out with 30 calls a minute (found by review).
    /// - Throws: ``RateLimitExceeded`` naming the limit that refused.
    func admitCall(caller: String, callee: String, exemptFromCalleeBudget: Bool = false) throws {
        let now = clock.now()
        let pair = Pair(caller: caller, callee: callee)
        let (perCaller, perPair, perCallee) = state.withLock {
            state -> (RateLimitDecision, RateLimitDecision, RateLimitDecision) in
            let perCaller = state.calls?.check(caller, now: now) ?? .allowed
            let perPair = state.callsToOneCallee?.check(pair, now: now) ?? .allowed
            let perCallee =
                exemptFromCalleeBudget ? .allowed : state.callsPerCallee?.check(callee, now: now) ?? .allowed
            if perCaller == .allowed && perPair == .allowed && perCallee == .allowed {
                state.calls?.record(caller, now: now)
                state.callsToOneCallee?.record(pair, now: now)
                state.callsPerCallee?.record(callee, now: now)
            }
            return (perCaller, perPair, perCallee)
        }
        // The pair's limit is the one a harassed callee needs named.
        try refuse(
            perPair, .callsToOneCallee,
            "too many calls from this caller to \(callee) (more than \(settings.callsToOneCalleePerMinute) a minute)")
        try refuse(
            perCaller, .calls,
            "too many calls from this caller (more than \(settings.callsPerCallerPerMinute) a minute)")
        try refuse(
            perCallee, .callsPerCallee,
            "too many calls to \(callee) from all callers (more than \(settings.callsPerCalleePerMinute) a minute)")
    }

    /// The callees among `callees` whose own budget (`--rate-limit-calls-per-callee-per-minute`) is spent now,
    /// without spending anything: only for those does it matter whether they know the caller.
    func calleesOverBudget(_ callees: [String]) -> [String] {
        let now = clock.now()
        return state.withLock { state in
            guard let limiter = state.callsPerCallee else { return [] }
            return callees.filter { limiter.check($0, now: now) != .allowed }
        }
    }

    /// A group call's spending (decision 0007 §7): `callees.count` of the caller's calls, one of each pair's and one
    /// of each callee's (but those in `exempt`, who talked with the caller before), all or none, so a group cannot
    /// ring past any per-callee limit nor a caller ring more people a minute than one by one.
    /// - Throws: ``RateLimitExceeded`` naming the first limit that refused.
    func admitCalls(caller: String, callees: [String], exempt: Set<String> = []) throws {
        let now = clock.now()
        let pairs = callees.map { Pair(caller: caller, callee: $0) }
        let refusal = state.withLock { state -> (RateLimitDecision, RateLimitSettings.Limit, String)? in
            let perCaller = state.calls?.check(caller, now: now, cost: callees.count) ?? .allowed
            for pair in pairs {
                let decision = state.callsToOneCallee?.check(pair, now: now) ?? .allowed
                if decision != .allowed { return (decision, .callsToOneCallee, pair.callee) }
            }
            if perCaller != .allowed { return (perCaller, .calls, "") }
            for callee in callees where !exempt.contains(callee) {
                let decision = state.callsPerCallee?.check(callee, now: now) ?? .allowed
                if decision != .allowed { return (decision, .callsPerCallee, callee) }
            }
            state.calls?.record(caller, now: now, cost: callees.count)
            for pair in pairs { state.callsToOneCallee?.record(pair, now: now) }
            for callee in callees { state.callsPerCallee?.record(callee, now: now) }
            return nil
        }
        guard let (decision, limit, callee) = refusal else { return }
        switch limit {
        case .callsToOneCallee:
            try refuse(
                decision, limit,
                "too many calls from this caller to \(callee) (more than \(settings.callsToOneCalleePerMinute) a minute)"
            )
        case .calls:
            try refuse(
                decision, limit,
                "too many callees rung by this caller: each callee of a group call counts as a call "
                    + "(more than \(settings.callsPerCallerPerMinute) a minute)")
        default:
            try refuse(
                decision, limit,
                "too many calls to \(callee) from all callers (more than \(settings.callsPerCalleePerMinute) a minute)")
        }
    }

    // MARK: Devices

    /// Spends one device change (`PUT` or `DELETE /v1/devices/{id}`) of `user`.
    /// - Throws: ``RateLimitExceeded``.
    func admitDeviceChange(user: String) throws {
        try spendOne(
            \.deviceChanges, user, .deviceChanges,
            "too many device registrations or removals by this user (more than \(settings.deviceChangesPerUserPerMinute) a minute)"
        )
    }

    // MARK: Reads

    /// Spends one read (`GET` or `HEAD` of the API) of `user`.
    /// - Throws: ``RateLimitExceeded``.
    func admitRead(user: String) throws {
        try spendOne(
            \.reads, user, .reads, "too many reads by this user (more than \(settings.readsPerUserPerMinute) a minute)")
    }

    /// Spends one event-stream connection of `user`; runs on the libwebsockets thread (nothing here waits).
    /// - Throws: ``RateLimitExceeded``.
    func admitEventStreamConnect(user: String) throws {
        try spendOne(
            \.eventStreamConnects, user, .eventStreamConnects,
            "too many event stream connections by this user (more than \(settings.eventStreamConnectsPerUserPerMinute) a minute)"
        )
    }

    // MARK: Helpers

    /// Spends one of `key`'s budget on the limiter at `limiter` (nothing when that limit is off).
    /// - Throws: ``RateLimitExceeded`` naming `limit` and saying `what`, when the budget is spent.
    private func spendOne(
        _ limiter: WritableKeyPath<State, RateLimiter<String>?>, _ key: String,
        _ limit: RateLimitSettings.Limit, _ what: String
    ) throws {
        let now = clock.now()
        let decision = state.withLock { $0[keyPath: limiter]?.acquire(key, now: now) ?? .allowed }
        try refuse(decision, limit, what)
    }

    private func refuse(_ decision: RateLimitDecision, _ limit: RateLimitSettings.Limit, _ what: String) throws {
        guard case .limited(let seconds) = decision else { return }
        throw RateLimitExceeded(
            limit: limit, problem: APIProblem.rateLimited("\(what); retry after \(seconds) s (--\(limit.rawValue))"),
            retryAfter: seconds)
    }

    private static func longer(_ a: RateLimitDecision, _ b: RateLimitDecision) -> RateLimitDecision {
        switch (a, b) {
        case (.limited(let x), .limited(let y)): return .limited(retryAfter: max(x, y))
        case (.limited, _): return a
        default: return b
        }
    }
}
