public import Foundation

/// What a ``RateLimiter`` decided for one unit.
public enum RateLimitDecision: Equatable, Sendable {
    /// The unit may be spent (and was, for ``RateLimiter/acquire(_:now:)``).
    case allowed
    /// Refused; `retryAfter` is the whole number of seconds (at least 1, rounded up) after which one unit
    /// will be allowed, the value of an HTTP `Retry-After` header (RFC 9110 §10.2.3).
    case limited(retryAfter: Int)
}

/// A keyed rate limiter: each key may spend `limit` units per `window` seconds, in a burst of at most
/// `limit`, refilled at one unit every `window / limit` seconds. Decides only (no I/O, no lock); the clock is
/// a parameter, so its owner supplies the time and serialises access.
///
/// It is the generic cell rate algorithm (GCRA, ITU-T I.371), a token bucket that keeps one number per key:
/// the "theoretical arrival time" after which the key's bucket is full again. A key whose bucket is full
/// holds no information, so it may be dropped; memory stays bounded under a flood of distinct keys by
/// ``maxKeys`` (see ``acquire(_:now:)``).
public struct RateLimiter<Key: Hashable & Sendable>: Sendable {
    /// Units per window (the burst size), at least 1.
    public let limit: Int
    /// The window, seconds.
    public let window: TimeInterval
    /// Most keys held at once; past it idle keys are dropped first, then those nearest to idle.
    public let maxKeys: Int
    /// Seconds one unit takes to refill.
    private let interval: TimeInterval
    /// Per key: the time (seconds since the reference date) at which its bucket is full again.
    private var fullAt: [Key: TimeInterval] = [:]

    /// Creates an empty limiter.
    /// - Parameters:
    ///   - limit: units per window, at least 1 (a disabled limit is the owner's business: it holds no limiter).
    ///   - window: the window in seconds, more than 0; 60 for "per minute".
    ///   - maxKeys: most keys remembered, at least 2.
    public init(limit: Int, window: TimeInterval = 60, maxKeys: Int = 100_000) {
        precondition(limit >= 1 && window > 0 && maxKeys >= 2, "RateLimiter needs limit >= 1, window > 0, maxKeys >= 2")
        self.limit = limit
        self.window = window
        self.maxKeys = maxKeys
        interval = window / Double(limit)
    }

    /// How many keys are remembered (tests; diagnostics).
    public var keyCount: Int { fullAt.count }

    /// Spends one unit of `key` when it has one.
    /// - Parameters:
    ///   - key: whose budget.
    ///   - now: the current time.
    /// - Returns: ``RateLimitDecision/allowed`` (spent) or ``RateLimitDecision/limited(retryAfter:)`` (nothing spent).
    public mutating func acquire(_ key: Key, now: Date) -> RateLimitDecision {
        let decision = check(key, now: now)
        if decision == .allowed { spend(key, now: now) }
        return decision
    }

    /// Whether `key` has a unit, without spending it (the owner spends later with ``record(_:now:)``, e.g.
    /// only when an attempt turned out to fail).
    /// - Returns: the decision ``acquire(_:now:)`` would make.
    /// - Parameter cost: units to have at once (a group call rings `cost` callees), at least 1; more than
    ///   ``limit`` is never allowed.
    public func check(_ key: Key, now: Date, cost: Int = 1) -> RateLimitDecision {
        let time = now.timeIntervalSinceReferenceDate
        let cost = max(1, cost)
        guard cost <= limit else { return .limited(retryAfter: Int(window.rounded(.up))) }
        let full = fullAt[key] ?? time
        // Spending `cost` more would push the bucket's refill past one window from now.
        let wait = max(full, time) + interval * Double(cost) - window - time
        // A tolerance for the rounding of `interval * cost`: a full bucket always has `limit` units.
        guard wait > 1e-9 else { return .allowed }
        return .limited(retryAfter: max(1, Int(wait.rounded(.up))))
    }

    /// Spends `cost` units of `key` whether or not it had them (a failure that already happened counts).
    public mutating func record(_ key: Key, now: Date, cost: Int = 1) {
        spend(key, now: now, cost: max(1, cost))
    }

    /// Drops every key whose bucket is full again at `now`: they hold no information.
    public mutating func evictIdle(now: Date) {
        let time = now.timeIntervalSinceReferenceDate
        fullAt = fullAt.filter { $0.value > time }
    }

    private mutating func spend(_ key: Key, now: Date, cost: Int = 1) {
        let time = now.timeIntervalSinceReferenceDate
        if fullAt[key] == nil && fullAt.count >= maxKeys { makeRoom(now: now) }
        fullAt[key] = max(fullAt[key] ?? time, time) + interval * Double(cost)
    }

    /// Frees at least half of ``maxKeys``: idle keys first, then the keys nearest to idle (they lose least by
    /// being forgotten). Freeing half at once keeps the cost per new key amortised O(log n) under a flood.
    private mutating func makeRoom(now: Date) {
        evictIdle(now: now)
        let keep = maxKeys / 2
        guard fullAt.count > keep else { return }
        let kept = fullAt.sorted { $0.value > $1.value }.prefix(keep)
        fullAt = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}
