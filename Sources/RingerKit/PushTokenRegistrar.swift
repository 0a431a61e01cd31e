public import Foundation
public import RingerSupport
public import RingerWire

/// Keeps this install's device registration on the server (docs/openapi.yaml `/v1/devices`) in step with its push
/// tokens and its logged-in user, whatever order the platform and the app deliver them in:
///
/// - **Never without a user**: a token that arrives before login is kept and sent right after
///   ``logIn(_:)``; with nobody logged in nothing is sent (the legacy API attached such tokens to nobody).
/// - **Rotation and invalidation**: a changed token re-registers the device; an invalidated one
///   (PushKit `didInvalidatePushTokenFor`) re-registers without it, or unregisters when none is left.
/// - **Logout**: ``logOut()`` unregisters the device with the user's own credentials, and the user
///   is forgotten only once the server acknowledged (or refused) the `DELETE`.
/// - **One request at a time**: requests are made one after another by a single task; each next
///   request is computed from the newest state, so intermediate tokens are coalesced away.
/// - **Transient failures** (``RingerAPIError/isRetryable``) are retried with ``Backoff`` while the
///   state being reached is still wanted; a change during the wait retries at once with the new state.
/// - **Readiness**: once the app reports what would stop the phone ringing (``setReadiness(_:)``), every
///   registration carries it, and a changed report re-registers (after login, like a token).
///
/// Thread-safe: every method may be called from any thread (PushKit's queue, the main thread).
/// Observer callbacks run on a background task, outside the registrar's lock.
public final class PushTokenRegistrar: Sendable {
    /// What the server should hold for the current login session.
    private enum Goal: Equatable {
        case register(session: Int, tokens: Tokens, readiness: DeviceReadiness?)
        case unregister(session: Int)
    }

    private enum Step {
        case logout(id: Int, api: RingerAPIClient)
        case goal(Goal, api: RingerAPIClient)
    }

    private struct PendingLogout {
        var id: Int
        var api: RingerAPIClient
    }

    private struct State {
        var tokens = Tokens()
        /// The app's last readiness report (problems normalised); nil until ``setReadiness(_:)`` is called.
        var readiness: DeviceReadiness?
        var api: RingerAPIClient?
        /// Bumped on every login and logout, so an answer for an old session changes nothing.
        var session = 0
        var nextLogoutID = 0
        /// Logged-out users whose `DELETE` is not acknowledged yet, oldest first.
        var logouts: [PendingLogout] = []
        var acknowledged: Goal?
        /// A goal the server refused: not tried again until the wanted state changes.
        var refused: Goal?
        var device: Device?
        var running = false
        var backoff: (sleeper: Task<Void, Never>, step: Step)?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The app-chosen stable id of this install (`PUT /v1/devices/{device_id}`).
    public let deviceID: String
    private let platform: Platform
    private let bundleID: String?
    private let apnsEnvironment: APNsEnvironment?
    private let backoff: Backoff
    private let random: @Sendable () -> Double
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private let observer: @Sendable (Observation) -> Void
    private let state = LockedValue(State())

    /// Creates the registrar. Create it at launch, before PushKit can deliver a token.
    /// - Parameters:
    ///   - deviceID: stable id of this app install.
    ///   - platform: `.ios` (sends VoIP and APNs tokens) or `.android` (sends the FCM token).
    ///   - bundleID: the app's bundle id; required by the server for iOS (VoIP topic `<bundle_id>.voip`).
    ///   - apnsEnvironment: the APNs host the tokens belong to (`.sandbox` for development builds).
    ///   - backoff: the retry policy for transient failures; by default 0.5…1 s before the first retry,
    ///     doubling, at most 60 s.
    ///   - random: a number in `0...1` for the backoff's jitter; random by default, fixed in tests.
    ///   - sleep: waits a number of seconds before a retry; must throw or return early when its task is
    ///     cancelled (the registrar cancels it when the wanted state changes). Injectable for tests.
    ///   - observer: receives every ``Observation``.
    public init(
        deviceID: String, platform: Platform, bundleID: String? = nil,
        apnsEnvironment: APNsEnvironment? = nil, backoff: Backoff = PushTokenRegistrar.defaultBackoff,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        observer: @escaping @Sendable (Observation) -> Void = { _ in }
    ) {
        self.deviceID = deviceID
        self.platform = platform
        self.bundleID = bundleID
        self.apnsEnvironment = apnsEnvironment
        self.backoff = backoff
        self.random = random
        self.sleep = sleep
        self.observer = observer
    }

    /// Records a token the platform delivered (first issue or rotation); the same token again is a no-op.
    /// - Parameters:
    ///   - token: the token as text (FCM), or hex; an empty string counts as an invalidation.
    ///   - kind: which token it is.
    public func setToken(_ token: String, for kind: TokenKind) {
        change { $0.tokens[kind] = token.isEmpty ? nil : token }
    }

    /// Records a binary token (`PKPushCredentials.token`, the APNs device token) as lowercase hex.
    /// - Parameters:
    ///   - token: the token bytes, of any length.
    ///   - kind: which token it is.
    public func setToken(_ token: Data, for kind: TokenKind) {
        setToken(token.map { String(format: "%02x", $0) }.joined(), for: kind)
    }

    /// Drops a token the platform invalidated (PushKit `pushRegistry(_:didInvalidatePushTokenFor:)`):
    /// the device is re-registered without it, or unregistered when no token is left.
    /// - Parameter kind: which token was invalidated.
    public func invalidateToken(_ kind: TokenKind) {
        change { $0.tokens[kind] = nil }
    }

    /// Records what the app found would stop this phone ringing (``ReadinessProblem``: notifications off, …):
    /// it is sent with every registration from now on, and a report that differs from the last one
    /// re-registers the device, after login only. The same problems again, in any order, send nothing.
    ///
    /// The registrar adds ``ReadinessProblem/noPushToken`` itself whenever the token that rings this platform
    /// (the VoIP token on iOS, the FCM token on Android) is missing, so `readiness` need not say so.
    /// - Parameter readiness: the problems found; its `reportedAt` is ignored (the server stamps its own).
    public func setReadiness(_ readiness: DeviceReadiness) {
        change { $0.readiness = DeviceReadiness(problems: readiness.normalizedProblems) }
    }

    /// Starts a login session: the tokens held are registered for this user. Calling it again (e.g.
    /// with a refreshed user token) re-registers for the new client without unregistering.
    /// - Parameter api: the logged-in user's client; its credentials are used for every request of
    ///   this session, including the `DELETE` at logout.
    public func logIn(_ api: RingerAPIClient) {
        change { state in
            state.api = api
            state.session += 1
            state.device = nil
        }
    }

    /// Ends the login session: the device is unregistered with this user's credentials (retried
    /// until acknowledged). Tokens are kept and registered again at the next login. No-op when
    /// nobody is logged in.
    public func logOut() {
        change { state in
            guard let api = state.api else { return }
            state.logouts.append(PendingLogout(id: state.nextLogoutID, api: api))
            state.nextLogoutID += 1
            state.api = nil
            state.session += 1
        }
    }

    /// The current state.
    public var status: Status {
        state.withLock { state in
            Status(
                isLoggedIn: state.api != nil, tokens: state.tokens, registeredDevice: state.device,
                isSyncing: state.running)
        }
    }

    /// Returns once no request is in flight or waiting to be retried (for tests, or an app that
    /// holds a background task until logout reached the server). Never returns while a transient
    /// failure keeps being retried.
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if !state.running { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: - Work

    /// Applies a change, starts the worker if there is work, and cuts short a backoff wait whose
    /// request is no longer wanted.
    private func change(_ body: (inout State) -> Void) {
        let (start, stale) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            body(&state)
            var stale: Task<Void, Never>?
            if let waiting = state.backoff, !isWanted(waiting.step, in: state) {
                stale = waiting.sleeper
                state.backoff = nil
            }
            guard !state.running, nextStep(in: state) != nil else { return (false, stale) }
            state.running = true
            return (true, stale)
        }
        stale?.cancel()
        if start { Task { await self.work() } }
    }

    private func work() async {
        while true {
            let (step, waiters) = state.withLock { state -> (Step?, [CheckedContinuation<Void, Never>]) in
                if let step = nextStep(in: state) { return (step, []) }
                state.running = false
                defer { state.idleWaiters.removeAll() }
                return (nil, state.idleWaiters)
            }
            guard let step else {
                waiters.forEach { $0.resume() }
                return
            }
            await perform(step)
        }
    }

    /// Makes one step's request, retrying transient failures while the step is wanted.
    private func perform(_ step: Step) async {
        var retry = 0
        while true {
            do {
                observer(try await send(step))
                return
            } catch let error as RingerAPIError where error.isRetryable {
                retry += 1
                let delay = backoff.delay(beforeRetry: retry, random: random())
                let sleeper = state.withLock { state -> Task<Void, Never>? in
                    guard isWanted(step, in: state) else { return nil }
                    let sleeper = Task { [sleep] in _ = try? await sleep(delay) }
                    state.backoff = (sleeper, step)
                    return sleeper
                }
                guard let sleeper else { return }
                observer(.retrying(attempt: retry, delay: delay, detail: error.description))
                await sleeper.value
                let wanted = state.withLock { state in
                    state.backoff = nil
                    return isWanted(step, in: state)
                }
                guard wanted else { return }
            } catch {
                state.withLock { state in
                    switch step {
                    case .logout(let id, _): state.logouts.removeAll { $0.id == id }
                    case .goal(let goal, _): state.refused = goal
                    }
                }
                observer(.failed(detail: String(describing: error)))
                return
            }
        }
    }

    /// Sends one request and records the acknowledgement.
    private func send(_ step: Step) async throws -> Observation {
        switch step {
        case .logout(let id, let api):
            try await api.unregisterDevice(id: deviceID)
            state.withLock { state in
                state.logouts.removeAll { $0.id == id }
                if state.api == nil { state.device = nil }
            }
            return .unregistered(deviceID: deviceID)
        case .goal(let goal, let api):
            switch goal {
            case .register(let session, let tokens, let readiness):
                let device = try await api.registerDevice(id: deviceID, registration(tokens, readiness: readiness))
                state.withLock { state in
                    guard state.session == session else { return }
                    state.acknowledged = goal
                    state.device = device
                }
                return .registered(device)
            case .unregister(let session):
                try await api.unregisterDevice(id: deviceID)
                state.withLock { state in
                    guard state.session == session else { return }
                    state.acknowledged = goal
                    state.device = nil
                }
                return .unregistered(deviceID: deviceID)
            }
        }
    }

    // MARK: - Decisions (called with the lock held)

    /// Pending logouts first, in order; then the current user's goal unless reached or refused.
    private func nextStep(in state: State) -> Step? {
        if let logout = state.logouts.first { return .logout(id: logout.id, api: logout.api) }
        guard let api = state.api, let goal = wantedGoal(in: state), goal != state.acknowledged,
            goal != state.refused
        else { return nil }
        return .goal(goal, api: api)
    }

    private func wantedGoal(in state: State) -> Goal? {
        guard state.api != nil else { return nil }
        let tokens = relevant(state.tokens)
        if !tokens.isEmpty {
            return .register(
                session: state.session, tokens: tokens,
                readiness: state.readiness.map { Self.readiness($0, tokens: tokens, platform: platform) })
        }
        // Nothing left to register: remove what this session registered (the server drops token-less devices).
        if case .register(let session, _, _) = state.acknowledged, session == state.session {
            return .unregister(session: state.session)
        }
        return nil
    }

    private func isWanted(_ step: Step, in state: State) -> Bool {
        switch step {
        case .logout(let id, _): state.logouts.contains { $0.id == id }
        case .goal(let goal, _): wantedGoal(in: state) == goal
        }
    }

    /// The tokens this platform registers (docs/openapi.yaml `DeviceRegistration`: VoIP/APNs on iOS, FCM on Android).
    private func relevant(_ tokens: Tokens) -> Tokens {
        platform == .android ? Tokens(fcm: tokens.fcm) : Tokens(voip: tokens.voip, apns: tokens.apns)
    }

    private func registration(_ tokens: Tokens, readiness: DeviceReadiness?) -> DeviceRegistration {
        if platform == .android {
            return DeviceRegistration(platform: platform, fcmToken: tokens.fcm, readiness: readiness)
        }
        return DeviceRegistration(
            platform: platform, voipToken: tokens.voip, apnsToken: tokens.apns,
            apnsEnvironment: apnsEnvironment, bundleID: bundleID, readiness: readiness)
    }

    /// The report a registration carries: the app's problems, plus ``ReadinessProblem/noPushToken`` when the
    /// token that wakes this platform to ring is missing (iOS: only a PushKit VoIP push can report a call while
    /// the app is not running, so an APNs token alone does not ring; Android: the FCM token), made
    /// ``DeviceReadiness/registrable`` so the server never refuses the registration for its report.
    static func readiness(_ reported: DeviceReadiness, tokens: Tokens, platform: Platform) -> DeviceReadiness {
        let ringingToken = platform == .android ? tokens.fcm : tokens.voip
        guard ringingToken == nil else { return reported.registrable }
        return DeviceReadiness(problems: reported.problems + [.noPushToken]).registrable
    }
}
