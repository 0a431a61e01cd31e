import Foundation
internal import RingerKit
internal import RingerKitApple
internal import RingerWire

/// The module's methods (docs/react-native.md, "Methods"), each the native side of one JavaScript call. They throw
/// ``RingerBridgeError``s only; arguments are checked here as well as in JavaScript, so no argument can crash
/// native code. Until ``start()`` ran, every method but `configure` (which starts the host), `getInitialEvents`
/// and `getCallHistory` rejects `not_configured`.
extension RingerReactNative {
    /// `configure({server})`: starts the host if the app has not yet (Expo's template starts React Native before
    /// the AppDelegate subscribers' `didFinishLaunching`), keeps `server` for the next cold starts (and uses it now
    /// when no phone exists yet), creates the phone if there is none, and says how things stand. A `server` equal to
    /// the app's default (Info.plist `RingerServerURL`) removes the stored choice instead, so an app that passes its
    /// default at every launch never pins it, and a new app version's default takes effect. A phone already running
    /// keeps its server until the next launch; a stored session made on another server is deleted when the phone is
    /// created (see ``install(server:)``).
    /// - Parameter server: the server's base URL, or nil to keep the stored or Info.plist one.
    /// - Returns: the state; `server` is the one this process uses, `userID` nil when nobody is logged in on it.
    /// - Throws: `invalid_argument` for a URL that is not http(s); `not_configured` when no server is known at all;
    ///   `native` when the choice could not be stored.
    func configure(server: String?) async throws -> NativeState {
        var chosen: URL?
        if let server {
            guard let url = Self.serverURL(server) else {
                throw RingerBridgeError.invalidArgument("server must be an http(s) URL with a host: \(server)")
            }
            let isDefault = defaultServer.map { Self.sameServer(url, $0) } ?? false
            do {
                try store(server: isDefault ? nil : StoredServer(server: url.absoluteString))
            } catch {
                throw RingerBridgeError.native("the server could not be stored: \(error)")
            }
            chosen = url
        }
        start()
        let phone: RingerPhone
        if let existing = withState({ $0.phone }) {
            phone = existing
        } else if let server = chosen ?? knownServer() {
            phone = install(server: server)
        } else {
            throw Self.noServer
        }
        let readiness = await refreshReadiness()
        return NativeState(
            server: phone.server.absoluteString, deviceID: phone.coordinator.deviceID,
            userID: withState { $0.session?.userID }, calls: bridgeCalls(), readiness: readiness)
    }

    /// `login(userToken)`: keeps the session natively (``StoredSession``) and logs the phone in. The same user again
    /// replaces the token.
    /// - Parameter userToken: the user token the app's backend minted.
    /// - Returns: the token's subject.
    /// - Throws: `invalid_argument` for a token without a readable subject; `other_user_logged_in` while another
    ///   user is; `not_configured`; `native` when the session could not be stored (nothing changes then).
    func login(userToken: String) async throws -> LoginResult {
        let phone = try requirePhone()
        guard let userID = RingerAPIClient(baseURL: phone.server, userToken: userToken).userID, !userID.isEmpty else {
            throw RingerBridgeError.invalidArgument("the user token has no readable subject (a JWT with `sub`)")
        }
        let session = StoredSession(userToken: userToken, userID: userID, server: phone.server.absoluteString)
        let previous = try withState { state -> StoredSession? in
            if let current = state.session, current.userID != userID { throw RingerBridgeError.otherUserLoggedIn }
            defer { state.session = session }
            return state.session
        }
        do {
            try store(session: session)
        } catch {
            withState { $0.session = previous }
            throw RingerBridgeError.native("the session could not be stored: \(error)")
        }
        phone.logIn(userToken: userToken)
        return LoginResult(userID: userID)
    }

    /// `logout()`: logs the phone out (the device is unregistered with the user's own credentials) and deletes the
    /// stored session. Logged out already: nothing changes.
    /// - Throws: `call_in_progress` while a call is ringing or up; `not_configured`.
    func logout() async throws {
        let phone = try requirePhone()
        guard phone.coordinator.currentCalls().isEmpty else { throw RingerBridgeError.callInProgress }
        phone.logOut()
        withState { $0.session = nil }
        try? store(session: nil)
    }

    /// `startCall(callee, video, callWaiting)`: the server creates the call and rings the callee; CallKit shows it.
    /// - Parameter callWaiting: `on`, `off`, or empty for the server's `--call-waiting`.
    /// - Returns: the server's call; when its state is not `ringing` (busy, failed) nothing rings.
    /// - Throws: `invalid_argument` for an empty callee or another `callWaiting`; `not_logged_in`; `server_refused` or
    ///   `network` when the server refused or did not answer, `native` when its answer could not be read;
    ///   `call_ui_refused` when CallKit refused the call (it is cancelled on the server).
    func startCall(callee: String, video: Bool, callWaiting: String = "") async throws -> BridgeCall {
        let callee = callee.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !callee.isEmpty else { throw RingerBridgeError.invalidArgument("the callee is empty") }
        let waiting = try Self.callWaiting(callWaiting)
        return try await place { phone in try await phone.startCall(to: callee, hasVideo: video, callWaiting: waiting) }
    }

    /// The bridge's spelling of a call's `call_waiting`: `on`, `off`, or empty for the server's setting.
    /// - Throws: `invalid_argument` for anything else.
    static func callWaiting(_ value: String) throws -> Bool? {
        switch value {
        case "": return nil
        case "on": return true
        case "off": return false
        default: throw RingerBridgeError.invalidArgument("callWaiting must be on, off or empty")
        }
    }

    /// `startGroupCall(callees, video, answerPolicy)`: the server rings every callee in one call; CallKit shows one
    /// outgoing call, its handle the first callee.
    /// - Returns: the server's call with its `participants`; when its state is not `ringing` nothing rings.
    /// - Throws: `invalid_argument` for an empty list or id, an unknown policy or `callWaiting`; the rest as
    ///   ``startCall(callee:video:callWaiting:)``.
    func startGroupCall(
        callees: [String], video: Bool, answerPolicy: String, callWaiting: String = ""
    ) async throws -> BridgeCall {
        let callees = callees.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard !callees.isEmpty, !callees.contains(where: \.isEmpty) else {
            throw RingerBridgeError.invalidArgument("callees must name at least one user, none empty")
        }
        let policy = AnswerPolicy(rawValue: answerPolicy)
        guard AnswerPolicy.known.contains(policy) else {
            throw RingerBridgeError.invalidArgument("answerPolicy must be first_answer or all_may_join")
        }
        let waiting = try Self.callWaiting(callWaiting)
        return try await place { phone in
            try await phone.startGroupCall(to: callees, answerPolicy: policy, hasVideo: video, callWaiting: waiting)
        }
    }

    /// `ringMore(callId, callees)`: rings more people into a call this phone has.
    /// - Returns: the call's participants after it.
    /// - Throws: `invalid_argument`, `unknown_call`; `server_refused` (`callee-already-rung`, `call-state-conflict`…),
    ///   `network`.
    func ringMore(callID: String, callees: [String]) async throws -> [BridgeParticipant] {
        let (phone, _) = try liveCall(callID)
        guard !callees.isEmpty, !callees.contains(where: { $0.isEmpty }) else {
            throw RingerBridgeError.invalidArgument("callees must name at least one user, none empty")
        }
        do {
            let call = try await phone.coordinator.ringMore(callID: callID.lowercased(), callees: callees)
            return (call.legs ?? []).map(BridgeParticipant.init)
        } catch let error as RingerAPIError {
            throw RingerBridgeError(error)
        }
    }

    /// Places a call with `start` and keeps what JavaScript needs to name it; the common part of `startCall` and
    /// `startGroupCall`.
    private func place(_ start: (RingerPhone) async throws -> Call) async throws -> BridgeCall {
        let phone = try requirePhone()
        guard withState({ $0.session != nil }) else { throw RingerBridgeError.notLoggedIn }
        let call: Call
        do {
            call = try await start(phone)
        } catch let error as RingerAPIError {
            throw RingerBridgeError(error)
        } catch is CancellationError {
            throw RingerBridgeError.native("cancelled")
        } catch {
            throw RingerBridgeError.callUIRefused("CallKit refused the call: \(error)")
        }
        if call.state == .ringing {
            let summary = CallSummary(direction: .outgoing, peer: call.callee, hasVideo: call.hasVideo)
            withState { $0.outgoing[call.callID] = summary }
            // The call may have ended while CallKit took it (the callee declined at once): its end, observed before
            // this entry existed, had nothing to remove. An end observed from now on removes the entry itself.
            if !phone.coordinator.currentCalls().contains(where: { $0.uuid == UUID(uuidString: call.callID) }) {
                withState { $0.outgoing[call.callID] = nil }
            }
            observe(.callStarted(callID: call.callID))
        }
        return BridgeCall(
            callID: call.callID, direction: "outgoing", peer: call.callee, hasVideo: call.hasVideo,
            state: call.state.rawValue, participants: call.legs.map { $0.map(BridgeParticipant.init) })
    }

    /// `answer(callId)`: answers a ringing incoming call through CallKit, as its own UI would
    /// (`CXAnswerCallAction`); the answer is sent until the server confirms. A call being answered or answered
    /// already resolves: there is nothing to do.
    /// - Throws: `invalid_argument`, `unknown_call`, `wrong_state` for an outgoing call, `call_ui_refused`.
    func answer(callID: String) async throws {
        let (phone, call) = try liveCall(callID)
        guard call.direction == .incoming else {
            throw RingerBridgeError.wrongState("an outgoing call is answered by its callee")
        }
        guard call.phase == .ringing else { return }
        try await throughCallKit { try await phone.callKit.requestAnswer(callID: call.uuid) }
    }

    /// `decline(callId)`: declines an incoming call that still rings, through CallKit (`CXEndCallAction`).
    /// - Throws: `invalid_argument`, `unknown_call`, `wrong_state` for an answered or outgoing call, `call_ui_refused`.
    func decline(callID: String) async throws {
        let (phone, call) = try liveCall(callID)
        guard call.direction == .incoming, call.phase == .ringing else {
            throw RingerBridgeError.wrongState("only an incoming call that still rings can be declined: hang up")
        }
        try await throughCallKit { try await phone.callKit.requestEnd(callID: call.uuid) }
    }

    /// `hangUp(callId)`: ends any call this phone has through CallKit (`CXEndCallAction`); the coordinator cancels,
    /// declines or ends it as its phase calls for, durably.
    /// - Throws: `invalid_argument`, `unknown_call`, `call_ui_refused`.
    func hangUp(callID: String) async throws {
        let (phone, call) = try liveCall(callID)
        try await throughCallKit { try await phone.callKit.requestEnd(callID: call.uuid) }
    }

    /// `getRecentCalls(limit, before)`: a page of the user's call history as the server keeps it (`GET /v1/calls`).
    /// - Parameters:
    ///   - limit: 1 to 100, or 0 for the server's default.
    ///   - before: a page's `nextBefore`, nil for the newest.
    /// - Throws: `invalid_argument`, `not_configured`, `not_logged_in`, `server_refused`, `network`.
    func recentCalls(limit: Double, before: String?) async throws -> BridgeRecentCalls {
        guard limit.isFinite, limit.rounded() == limit, (0...100).contains(limit) else {
            throw RingerBridgeError.invalidArgument("limit must be a whole number from 1 to 100, or 0")
        }
        if let before, UUID(uuidString: before) == nil {
            throw RingerBridgeError.invalidArgument("before must be a call id (a UUID)")
        }
        let phone = try requirePhone()
        guard withState({ $0.session != nil }) else { throw RingerBridgeError.notLoggedIn }
        do {
            let page = try await phone.coordinator.recentCalls(
                limit: limit == 0 ? nil : Int(limit), before: before?.lowercased())
            return BridgeRecentCalls(page)
        } catch let error as RingerAPIError {
            throw RingerBridgeError(error)
        }
    }

    /// `setHeld(callId, held)`: holds or resumes an answered call through CallKit (`CXSetHeldCallAction`), so its
    /// screen agrees; the `held` event follows once CallKit did it. Resuming holds this phone's other calls first.
    /// - Returns: false when the call cannot take it (not answered yet): nothing was asked.
    /// - Throws: `invalid_argument`, `not_configured`, `unknown_call`.
    func setHeld(callID: String, held: Bool) throws -> Bool {
        let (phone, call) = try liveCall(callID)
        return phone.coordinator.setHeld(callID: call.uuid.uuidString, held: held)
    }

    /// `setMuted(callId, muted)`: mutes or unmutes a call's microphone through CallKit (`CXSetMutedCallAction`); the
    /// `muted` event follows once CallKit did it.
    /// - Returns: false when the call cannot take it: nothing was asked.
    /// - Throws: `invalid_argument`, `not_configured`, `unknown_call`.
    func setMuted(callID: String, muted: Bool) throws -> Bool {
        let (phone, call) = try liveCall(callID)
        return phone.coordinator.setMuted(callID: call.uuid.uuidString, muted: muted)
    }

    /// `playDtmf(callId, digits)`: plays keypad tones through CallKit (`CXPlayDTMFCallAction`); the `dtmf` event
    /// follows, and the app's media sends them then.
    /// - Returns: false when the call does not have the audio (not answered, held).
    /// - Throws: `invalid_argument` for digits that are not 1 to 64 keypad keys (`0`–`9`, `*`, `#`, `A`–`D`),
    ///   `not_configured`, `unknown_call`.
    func playDTMF(callID: String, digits: String) throws -> Bool {
        guard (1...64).contains(digits.count), digits.allSatisfy(PhoneCallMachine.dtmfDigits.contains) else {
            throw RingerBridgeError.invalidArgument("digits must be 1 to 64 of 0-9, *, #, A-D")
        }
        let (phone, call) = try liveCall(callID)
        return phone.coordinator.playDTMF(callID: call.uuid.uuidString, digits: digits)
    }

    /// `getAudioRoutes()`: where the calls' audio goes now and where it could, as `AVAudioSession` last said.
    /// - Throws: `not_configured`.
    func audioRoutes() throws -> BridgeAudioOutput.Routes {
        BridgeAudioOutput.Routes(try requirePhone().coordinator.audioRoutes)
    }

    /// `setAudioRoute(outputId)`: sends the calls' audio to an output `getAudioRoutes()` listed (the speaker by
    /// override, a headset by preferring its input); the `audioRouteChanged` event follows once iOS moved it. Chosen
    /// before a call's audio starts, it is applied when it does.
    /// - Returns: false when iOS lists no such output.
    /// - Throws: `not_configured`.
    func setAudioRoute(outputID: String) throws -> Bool {
        try requirePhone().coordinator.selectAudioOutput(id: outputID)
    }

    /// `getCalls()`: the calls up on this phone now, oldest first, each with the media of its `accepted` event once
    /// JavaScript was sent one (so an instance attached during the call can join it again).
    /// - Throws: `not_configured`.
    func calls() throws -> [BridgeCall] {
        _ = try requirePhone()
        return bridgeCalls()
    }

    /// `getReadiness()`: reads the pre-flight again.
    /// - Returns: its problems.
    /// - Throws: `not_configured`.
    func readiness() async throws -> [String] {
        _ = try requirePhone()
        return await refreshReadiness()
    }

    /// `openReadinessSettings(problem)`: opens the system page that fixes `problem`. On iOS only
    /// `notifications_disabled` has one (the app's page in Settings).
    /// - Returns: true when a page was opened.
    func openReadinessSettings(problem: String) async throws -> Bool {
        guard problem == ReadinessProblem.notificationsDisabled.rawValue else { return false }
        return await environment.openAppSettings()
    }

    /// `getCallHistory(limit)`: the newest calls that rang or were placed here, newest first, across launches.
    /// - Parameter limit: how many at most; a whole number, at least 0 (more than ``CallHistory/limit`` are never
    ///   kept).
    /// - Throws: `invalid_argument` for a limit that is not a whole number ≥ 0.
    func callHistory(limit: Double) throws -> [HistoryEntry] {
        guard limit.isFinite, limit >= 0, limit.rounded() == limit else {
            throw RingerBridgeError.invalidArgument("limit must be a whole number, at least 0")
        }
        return Array(historyEntries.prefix(Int(min(limit, Double(CallHistory.limit)))))
    }

    // MARK: Helpers

    static let notStarted = RingerBridgeError.notConfigured(
        "RingerReactNative.start() has not run: call it first in application(_:didFinishLaunchingWithOptions:), "
            + "add the @ringer/react-native Expo plugin, or call configure() first")
    static let noServer = RingerBridgeError.notConfigured(
        "no server: set RingerServerURL in Info.plist or call configure({server})")

    /// The phone, or `not_configured`.
    func requirePhone() throws -> RingerPhone {
        let (started, phone) = withState { ($0.started, $0.phone) }
        guard started else { throw Self.notStarted }
        guard let phone else { throw Self.noServer }
        return phone
    }

    /// The call `callID` names, if it is up on this phone.
    /// - Throws: `invalid_argument` for an id that is not a UUID, `not_configured`, `unknown_call`.
    private func liveCall(_ callID: String) throws -> (RingerPhone, PhoneCallMachine.PhoneCall) {
        guard let uuid = UUID(uuidString: callID) else {
            throw RingerBridgeError.invalidArgument("not a call id (a UUID): \(callID)")
        }
        let phone = try requirePhone()
        guard let call = phone.coordinator.currentCalls().first(where: { $0.uuid == uuid }) else {
            throw RingerBridgeError.unknownCall(callID)
        }
        return (phone, call)
    }

    /// A CallKit transaction; the system's refusal becomes `call_ui_refused`.
    private func throughCallKit(_ request: () async throws -> Void) async throws {
        do {
            try await request()
        } catch {
            throw RingerBridgeError.callUIRefused("CallKit refused the request: \(error)")
        }
    }

    private func bridgeCalls() -> [BridgeCall] {
        currentCalls().map { call in
            BridgeCall(
                callID: call.callID, direction: call.summary.direction.rawValue, peer: call.summary.peer,
                hasVideo: call.summary.hasVideo, state: call.phase.rawValue, media: call.media,
                participants: call.legs.map { $0.map(BridgeParticipant.init) })
        }
    }
}
