public import Foundation
public import HTTP2Client
import RingerSupport

/// The OAuth2 access token of one service account, shared by every FCM request of that account.
///
/// A token comes from the JWT bearer grant (RFC 7523: RS256, `kid` = private key id, `iss` = client
/// e-mail, `scope` = ``FCM/messagingScope``, `aud` = token URI, one-hour assertion) posted to the account's
/// `token_uri` over ``HTTP2Client``. It is reused until ``refreshMargin(forLifetime:)`` before its
/// `expires_in` runs out (5 minutes, or a tenth of the lifetime when that is shorter), measured on a
/// monotonic clock from when the grant was sent, so a wall-clock jump cannot make it look fresh.
///
/// However many requests need a token at once, **one grant is in flight**. Inside the refresh margin the
/// grant runs in the background while callers keep getting the cached token, which has not expired yet, so
/// a slow or failing token endpoint costs nothing until the token really runs out. Only when no unexpired
/// token is cached do callers wait for the grant (each within its own deadline); it carries on for later
/// callers when a waiter gives up. When FCM answers 401, ``invalidate(_:)``
/// drops the token so the next caller makes a new grant; invalidating a token that was already replaced
/// does nothing, so a late 401 never throws away a newer token.
///
/// Real time only: `clock` and `wallClock` exist for tests; a scenario's scaled clock must never age the
/// token (Google's clock judges `iat`/`exp`, and `expires_in` is Google's seconds).
/// Thread-safe; every method may be called from any task.
public final class FCMAccessTokenSource: Sendable {
    private struct Cached {
        var token: FCMAccessToken
        /// From here on callers get a new grant.
        var refreshAt: ContinuousClock.Instant
        /// Past here the token is no use even as a fallback.
        var expiresAt: ContinuousClock.Instant
    }

    private struct Waiter {
        var continuation: CheckedContinuation<FCMAccessToken, any Error>
        /// A forced refresh (``refresh(deadline:)``) never falls back on the previous token.
        var forced: Bool
        var timer: Task<Void, Never>?
    }

    private struct State {
        var cached: Cached?
        var grantInFlight = false
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var grants = 0
    }

    /// The longest refresh margin, in seconds: a token is replaced at the latest 5 minutes before it expires.
    public static let maximumRefreshMargin: TimeInterval = 300

    /// How long before expiry a token is replaced: 5 minutes or a tenth of its lifetime, whichever is
    /// smaller (Google's 3599 s tokens are replaced after 3299 s; a sandbox's 60 s tokens after 54 s).
    /// - Parameter lifetime: the token's `expires_in`, in seconds.
    /// - Returns: the margin, in seconds.
    public static func refreshMargin(forLifetime lifetime: TimeInterval) -> TimeInterval {
        min(maximumRefreshMargin, lifetime / 10)
    }

    /// The account whose tokens this source makes.
    public let account: FCMServiceAccount
    /// Seconds one grant may take (connection, TLS, the endpoint's answer); default 10.
    public let grantTimeout: TimeInterval
    private let grant: FCMGrant
    private let client: HTTP2Client
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private let state = LockedValue(State())

    /// Creates the source; no grant is made until a token is first needed.
    /// - Parameters:
    ///   - account: the service account.
    ///   - client: the HTTP/2 client that reaches the account's `token_uri` (with the sandbox's CA when
    ///     there is one, and ``HTTP2Client/Configuration/http2PriorKnowledge`` for an `http://` loopback URI).
    ///   - grantTimeout: seconds one grant may take; at least 0.1.
    ///   - clock: monotonic time that ages tokens; tests only.
    ///   - wallClock: the source of the assertion's `iat`; tests only.
    public init(
        account: FCMServiceAccount, client: HTTP2Client, grantTimeout: TimeInterval = 10,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.account = account
        self.client = client
        self.grantTimeout = grantTimeout.isFinite ? max(grantTimeout, 0.1) : 10
        self.grant = FCMGrant(account: account)
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The current token: the cached one while it has not expired (inside the refresh margin a grant replaces
    /// it in the background), else the result of the (single) grant in flight.
    /// - Parameter deadline: when the caller stops waiting (wall clock); nil waits for the grant's own timeout.
    /// - Returns: a token that has not expired.
    /// - Throws: ``FCMAccessTokenError`` (`refused`, `unreachable`, `malformedAnswer`, `signing`, or `timedOut`
    ///   when `deadline` came first); `CancellationError` when the calling task is cancelled (the grant goes on).
    public func token(deadline: Date? = nil) async throws -> FCMAccessToken {
        let now = clock()
        let (cached, startGrant) = state.withLock { state -> (FCMAccessToken?, Bool) in
            guard let cached = state.cached, now < cached.expiresAt else { return (nil, false) }
            guard now >= cached.refreshAt, !state.grantInFlight else { return (cached.token, false) }
            state.grantInFlight = true
            state.grants += 1
            return (cached.token, true)
        }
        if startGrant { Task.detached { await self.runGrant() } }
        if let cached { return cached }
        return try await awaitGrant(forced: false, deadline: deadline)
    }

    /// Makes a new grant now (or joins the one in flight) whatever is cached: the start-up check that the
    /// account works (``FCMClient/verifyCredentials()``). The new token replaces the cached one.
    /// - Parameter deadline: when the caller stops waiting; nil waits for the grant's own timeout.
    /// - Returns: the new token.
    /// - Throws: as ``token(deadline:)``, without falling back on a previous token.
    @discardableResult
    public func refresh(deadline: Date? = nil) async throws -> FCMAccessToken {
        try await awaitGrant(forced: true, deadline: deadline)
    }

    /// Drops `token` after FCM answered 401 `UNAUTHENTICATED` with it, so the next caller makes a new grant.
    /// A token that is no longer the cached one (another request already replaced it) is left alone.
    /// - Parameter token: the access token value the refused request carried.
    /// - Returns: true when it was the cached token and was dropped; false when it had already gone.
    @discardableResult
    public func invalidate(_ token: String) -> Bool {
        state.withLock { state in
            guard state.cached?.token.value == token else { return false }
            state.cached = nil
            return true
        }
    }

    /// Grants made so far (successful or not), for statistics and tests.
    public var grantCount: Int { state.withLock { $0.grants } }

    private func awaitGrant(forced: Bool, deadline: Date?) async throws -> FCMAccessToken {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<FCMAccessToken, any Error>) in
                enum Step {
                    case resume(FCMAccessToken)
                    case cancelled, startGrant, wait
                }
                let step = state.withLock { state -> Step in
                    if !forced, let cached = state.cached, clock() < cached.refreshAt { return .resume(cached.token) }
                    // Checked under the lock: a cancellation handler that ran before this point found no waiter.
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = Waiter(continuation: continuation, forced: forced)
                    if state.grantInFlight { return .wait }
                    state.grantInFlight = true
                    state.grants += 1
                    return .startGrant
                }
                switch step {
                case .resume(let token):
                    continuation.resume(returning: token)
                    return
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                    return
                case .startGrant:
                    Task.detached { await self.runGrant() }
                case .wait:
                    break
                }
                if let deadline { armTimer(for: id, deadline: deadline) }
            }
        } onCancel: {
            release(id, with: .failure(CancellationError()))
        }
    }

    /// Fails waiter `id` with `timedOut` at `deadline`, unless the grant answered first.
    private func armTimer(for id: UInt64, deadline: Date) {
        let wait = deadline.timeIntervalSinceNow
        let timer = Task.detached { [weak self] in
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            guard !Task.isCancelled else { return }
            self?.release(id, with: .failure(FCMAccessTokenError.timedOut(after: max(wait, 0))))
        }
        let stillWaiting = state.withLock { state -> Bool in
            guard state.waiters[id] != nil else { return false }
            state.waiters[id]?.timer = timer
            return true
        }
        if !stillWaiting { timer.cancel() }
    }

    /// Resumes one waiter (deadline, cancellation), if it still waits.
    private func release(_ id: UInt64, with result: Result<FCMAccessToken, any Error>) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(with: result)
    }

    /// Makes the grant, caches its token and resumes every waiter.
    private func runGrant() async {
        let started = clock()
        let result: Result<FCMAccessToken, FCMAccessTokenError>
        do {
            result = .success(try await exchange())
        } catch let error as FCMAccessTokenError {
            result = .failure(error)
        } catch {
            result = .failure(.unreachable(String(describing: error)))
        }
        let (waiters, fallback) = state.withLock { state -> ([Waiter], FCMAccessToken?) in
            state.grantInFlight = false
            var fallback: FCMAccessToken?
            switch result {
            case .success(let token):
                let lifetime = Duration.milliseconds(Int64(token.lifetime * 1000))
                let margin = Duration.milliseconds(Int64(Self.refreshMargin(forLifetime: token.lifetime) * 1000))
                state.cached = Cached(
                    token: token, refreshAt: started + lifetime - margin, expiresAt: started + lifetime)
            case .failure(let error):
                if error.isRetryable, let cached = state.cached, clock() < cached.expiresAt { fallback = cached.token }
            }
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return (waiters, fallback)
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            switch result {
            case .success(let token):
                waiter.continuation.resume(returning: token)
            case .failure(let error):
                if let fallback, !waiter.forced {
                    waiter.continuation.resume(returning: fallback)
                } else {
                    waiter.continuation.resume(throwing: error)
                }
            }
        }
    }

    /// One grant over the network.
    private func exchange() async throws -> FCMAccessToken {
        let assertion = try grant.assertion(issuedAt: wallClock())
        let response: HTTP2Response
        do {
            response = try await client.send(grant.request(assertion: assertion, timeout: grantTimeout))
        } catch let error as HTTP2ClientError {
            if error == .timedOut {
                throw FCMAccessTokenError.unreachable("no answer within \(String(format: "%.1f", grantTimeout)) s")
            }
            throw FCMAccessTokenError.unreachable(error.description)
        }
        return try grant.token(from: response)
    }
}
