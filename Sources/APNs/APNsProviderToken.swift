public import Foundation
import RingerSync
public import JWT

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
        var mintedAt: ContinuousClock.Instant
    }

    private let credentials: Credentials
    /// How long a token is reused, seconds; between 20 and 60 minutes per Apple. Default 50 minutes.
    public let refreshInterval: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private let state = LockedValue<Cached?>(nil)

    /// Creates the token source. No token is minted until first needed.
    /// - Parameters:
    ///   - credentials: key, key id, team id.
    ///   - refreshInterval: token lifetime; clamped to 20…55 minutes so a token is never used near its hour.
    ///   - clock: monotonic time source (injectable for tests).
    ///   - wallClock: source of `iat` (seconds since 1970).
    public init(credentials: Credentials, refreshInterval: Duration = .seconds(50 * 60),
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.credentials = credentials
        self.refreshInterval = min(max(refreshInterval, .seconds(20 * 60)), .seconds(55 * 60))
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The current token, minting a new one if none exists or it reached ``refreshInterval``.
    /// - Returns: the compact JWT, for `authorization: bearer <token>`.
    /// - Throws: `JWTError` if signing fails.
    public func current() throws -> String {
        try state.withLock { cached in
            let now = clock()
            if let existing = cached, existing.mintedAt.duration(to: now) < refreshInterval {
                return existing.token
            }
            let token = try mint()
            cached = Cached(token: token, mintedAt: now)
            return token
        }
    }

    /// Drops `token` after APNs answered `ExpiredProviderToken` or `InvalidProviderToken`, so the next
    /// ``current()`` mints a new one. A token already replaced by another request is left alone, so
    /// many failing streams cause one refresh, not one each.
    public func invalidate(_ token: String) {
        state.withLock { cached in
            if cached?.token == token { cached = nil }
        }
    }

    private func mint() throws -> String {
        let claims = Claims(iss: credentials.teamID, iat: Int64(wallClock().timeIntervalSince1970))
        return try JWT.sign(claims, keyID: credentials.keyID, type: nil, with: credentials.key)
    }
}
