public import Foundation
public import JWT
import RingerSupport

/// The ES256 provider token (JWT) that authenticates requests to APNs, shared by every request.
///
/// Apple: "Establishing a token-based connection to APNs": the token's `iat` must be less than one
/// hour old, and refreshing it more often than every 20 minutes gets `TooManyProviderTokenUpdates`.
/// One token is reused until ``refreshInterval`` has passed on a monotonic clock (wall-clock jumps
/// cannot cause a refresh storm), or until APNs rejects it and ``invalidate(_:)`` is called.
///
/// Thread-safe: every method may be called from any thread.
public final class APNsProviderToken: Sendable {
    /// The signing key, its key id (`kid`, 10 characters) and the team id (`iss`).
    public struct Credentials: Sendable {
        /// The `.p8` private key (EC P-256).
        public var key: JWTSigningKey
        /// The key id Apple issued with the key.
        public var keyID: String
        /// The Apple developer team id.
        public var teamID: String

        /// Creates credentials.
        public init(key: JWTSigningKey, keyID: String, teamID: String) {
            self.key = key
            self.keyID = keyID
            self.teamID = teamID
        }
    }

    private struct Claims: Codable {
        var iss: String
        var iat: Int64
    }

    private struct Cached {
        var token: String
        /// `bearer <token>`, made once per token rather than once per push.
        var authorization: String
        var mintedAt: ContinuousClock.Instant
    }

    private struct State {
        var cached: Cached?
        /// When ``invalidate(_:)`` last dropped a token.
        var lastForcedRefresh: ContinuousClock.Instant?
        /// No forced refresh before this time (after `TooManyProviderTokenUpdates`).
        var throttledUntil: ContinuousClock.Instant?
    }

    /// Least time between two refreshes forced by ``invalidate(_:)``: a wrong key makes every push fail,
    /// and one new token per failing push would soon get `TooManyProviderTokenUpdates`.
    public static let minimumForcedRefreshInterval: Duration = .seconds(60)
    /// How long no token is minted early after APNs answered `TooManyProviderTokenUpdates`: Apple asks
    /// for no more than one update every 20 minutes.
    public static let throttlePeriod: Duration = .seconds(20 * 60)

    private let credentials: Credentials
    /// How long a token is reused, seconds; between 20 and 60 minutes per Apple. Default 50 minutes.
    public let refreshInterval: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private let state = LockedValue(State())

    /// Creates the token source. No token is minted until first needed.
    /// - Parameters:
    ///   - credentials: key, key id, team id.
    ///   - refreshInterval: token lifetime; clamped to 20…55 minutes so a token is never used near its hour.
    ///   - clock: monotonic time source (injectable for tests).
    ///   - wallClock: source of `iat` (seconds since 1970).
    public init(
        credentials: Credentials, refreshInterval: Duration = .seconds(50 * 60),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.credentials = credentials
        self.refreshInterval = min(max(refreshInterval, .seconds(20 * 60)), .seconds(55 * 60))
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The current token, minting a new one if none exists or it reached ``refreshInterval``.
    /// - Returns: the compact JWT, for `authorization: bearer <token>`.
    /// - Throws: `JWTError` if signing fails.
    public func current() throws -> String {
        try currentWithAuthorization().token
    }

    /// The current token (as ``current()``) and its `authorization` header value, `bearer <token>`, made once per
    /// token so that a push does not build it again.
    /// - Throws: `JWTError` if signing fails.
    public func currentWithAuthorization() throws -> (token: String, authorization: String) {
        try state.withLock { state in
            let now = clock()
            if let existing = state.cached, existing.mintedAt.duration(to: now) < refreshInterval {
                return (existing.token, existing.authorization)
            }
            let token = try mint()
            let cached = Cached(token: token, authorization: "bearer " + token, mintedAt: now)
            state.cached = cached
            return (cached.token, cached.authorization)
        }
    }

    /// Drops `token` after APNs answered `ExpiredProviderToken` or `InvalidProviderToken`, so the next
    /// ``current()`` mints a new one. A token already replaced by another request is left alone, so
    /// many failing streams cause one refresh, not one each; and at most one forced refresh happens per
    /// ``minimumForcedRefreshInterval``, none while throttled (``throttle()``).
    /// - Returns: true when a new token will be minted (retrying makes sense).
    @discardableResult
    public func invalidate(_ token: String) -> Bool {
        state.withLock { state in
            let now = clock()
            guard state.cached?.token == token else { return state.cached != nil }
            if let until = state.throttledUntil, now < until { return false }
            if let last = state.lastForcedRefresh, last.duration(to: now) < Self.minimumForcedRefreshInterval {
                return false
            }
            state.cached = nil
            state.lastForcedRefresh = now
            return true
        }
    }

    /// APNs answered 429 `TooManyProviderTokenUpdates`: keep the current token and refuse forced
    /// refreshes for ``throttlePeriod`` (the scheduled refresh still happens, so the token never
    /// reaches its hour). Apple: "Establishing a token-based connection to APNs".
    public func throttle() {
        state.withLock { state in state.throttledUntil = clock().advanced(by: Self.throttlePeriod) }
    }

    /// True while forced refreshes are refused after `TooManyProviderTokenUpdates`.
    public var isThrottled: Bool {
        state.withLock { state in state.throttledUntil.map { clock() < $0 } ?? false }
    }

    private func mint() throws -> String {
        let claims = Claims(iss: credentials.teamID, iat: Int64(wallClock().timeIntervalSince1970))
        return try JWT.sign(claims, keyID: credentials.keyID, type: nil, with: credentials.key)
    }
}
