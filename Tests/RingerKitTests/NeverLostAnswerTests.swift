import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// The phone never loses an answer (issue 27, item 1) nor a hang-up to a short outage, and every way of answering
/// reaches the native call UI (item 3). The coordinator runs on a clock twenty times faster than real time, so a
/// 30-second ring takes a second and a half.
@Suite struct NeverLostAnswerTests {
    /// A clock running `speed` times faster than real time from now; its sleeps are scaled down to match.
    final class FastClock: Sendable {
        let start = Date()
        let speed: Double
        init(speed: Double = 20) { self.speed = speed }
        func now() -> Date { start.addingTimeInterval(Date().timeIntervalSince(start) * speed) }
        func sleep(until deadline: Date) async throws {
            let seconds = deadline.timeIntervalSince(now()) / speed
            if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
        }
    }

    /// The server over a network that is down while `isDown` says so: every request then fails as URLSession's
    /// do without a network; otherwise accept, ringing and hang-ups succeed.
    final class OutageTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `log` is guarded by `lock`.
        private let lock = NSLock()
        private var log: [String] = []
        private let clock: FastClock
        private let isDown: @Sendable (Date) -> Bool
        private let hangs: @Sendable (String) -> Bool
        var requests: [String] { lock.withLock { log } }

        /// - Parameter hangs: when true for a request's path, the request is caught in a dropped connection: it gets
        ///   no answer until cancelled, as a TCP connection whose peer vanished.
        init(
            clock: FastClock, hangs: @escaping @Sendable (String) -> Bool = { _ in false },
            isDown: @escaping @Sendable (Date) -> Bool
        ) {
            self.clock = clock
            self.isDown = isDown
            self.hangs = hangs
        }

        func count(_ suffix: String) -> Int { requests.filter { $0.hasSuffix(suffix) }.count }

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            let now = clock.now()
            guard !isDown(now) else { throw URLError(.notConnectedToInternet) }
            if hangs(url.path) {
                lock.withLock { log.append("\(method) \(url.path) (hung)") }
                try await Task.sleep(for: .seconds(3600))
            }
            lock.withLock { log.append("\(method) \(url.path)") }
            // POST /v1/calls places a call, still ringing; every other request names one.
            let placing = url.pathComponents.count < 4
            let callID = placing ? UUID().uuidString.lowercased() : url.pathComponents[3]
            let call = Call(
                callID: callID, state: placing ? .ringing : .accepted, caller: Party(id: "alice"),
                callee: Party(id: "bob"), hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            if placing { return (201, try RingerJSON.encode(call)) }
            if url.path.hasSuffix("/accept") {
                return (
                    200,
                    try RingerJSON.encode(
                        AcceptResponse(call: call, media: MediaSession(url: "ws://media", token: "m")))
                )
            }
            return (200, try RingerJSON.encode(call))
        }
    }

    let clock = FastClock()
    let callID = UUID().uuidString.lowercased()
    var uuid: UUID { UUID(uuidString: callID)! }

    func push(ringFor seconds: TimeInterval = 30) -> Data {
        let now = clock.now()
        return try! RingerJSON.encode(
            VoIPPush(
                ringer: .init(
                    callID: callID, caller: Party(id: "alice"), hasVideo: false,
                    sentAt: now.unixMilliseconds,
                    expiresAt: now.addingTimeInterval(seconds).unixMilliseconds)))
    }

    func coordinator(
        ui: RecordingCallUI, transport: OutageTransport, memory: any CallMemoryStore = InMemoryCallMemoryStore(),
        actions: any PendingActionStore = InMemoryPendingActionStore()
    ) -> CallCoordinator {
        let clock = self.clock
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui, now: { clock.now() },
            sleepUntil: { try await clock.sleep(until: $0) }, random: { 0.5 },
            pendingActions: actions, callMemory: memory)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: transport))
        return coordinator
    }

    /// Waits (real time) until `condition` holds, at most five seconds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test func anAnswerGivenAsTheNetworkDropsForThreeSecondsConnectsWhenItReturns() async throws {
        let start = clock.now()
        let transport = OutageTransport(clock: clock) {
            $0 > start.addingTimeInterval(1) && $0 < start.addingTimeInterval(4)
        }
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui: ui, transport: transport)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        try await clock.sleep(until: start.addingTimeInterval(1.5))
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in answered.withLock { $0 = fulfilled } }
        #expect(await Self.eventually { answered.snapshot != nil })
        #expect(answered.snapshot == true)
        // Connected within the backoff's two-second ceiling of the network's return, and never ended meanwhile.
        #expect(clock.now() < start.addingTimeInterval(4 + 2.5))
        #expect(ui.ended.isEmpty)
        #expect(ui.answered == [uuid])
        #expect(transport.count("/accept") == 1)
    }

    @Test func anAnswerNeverDeliveredEndsAnswerNotDeliveredAtTheDeadlineAndDeclines() async throws {
        let start = clock.now()
        let transport = OutageTransport(clock: clock) {
            $0 > start.addingTimeInterval(1) && $0 < start.addingTimeInterval(60)
        }
        let ui = RecordingCallUI()
        let actions = InMemoryPendingActionStore()
        let coordinator = coordinator(ui: ui, transport: transport, actions: actions)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        try await clock.sleep(until: start.addingTimeInterval(1.5))
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in answered.withLock { $0 = fulfilled } }
        #expect(await Self.eventually { answered.snapshot != nil })
        #expect(answered.snapshot == false)
        // Not before the ring deadline (30 s) and its grace (2 s).
        #expect(clock.now() >= start.addingTimeInterval(32))
        #expect(ui.ended.map(\.1) == [.answerNotDelivered])
        #expect(actions.load().map(\.kind) == [.decline])
        // The decline reaches the server once the network is back.
        #expect(await Self.eventually { transport.count("/decline") == 1 && actions.load().isEmpty })
        #expect(transport.count("/accept") == 0)
    }

    @Test func anUnconfirmedAnswerSurvivesTheProcessAndConnectsAfterTheRelaunch() async throws {
        let start = clock.now()
        let memory = InMemoryCallMemoryStore()
        let down = OutageTransport(clock: clock) { _ in true }
        let firstUI = RecordingCallUI()
        let first = coordinator(ui: firstUI, transport: down, memory: memory)
        #expect(first.handleVoIPPush(push()) == .ringing)
        first.answer(callID: uuid) { _ in }
        #expect(memory.load().unconfirmedAnswers.keys.sorted() == [callID], "stored before the accept is sent")

        // The process dies; the relaunched app finds the network back.
        try await clock.sleep(until: start.addingTimeInterval(5))
        let up = OutageTransport(clock: clock) { _ in false }
        let ui = RecordingCallUI()
        let second = coordinator(ui: ui, transport: up, memory: memory)
        #expect(ui.reports.map(\.id) == [uuid], "shown again")
        #expect(await Self.eventually { ui.answered == [uuid] })
        #expect(up.count("/accept") == 1)
        #expect(!up.requests.contains { $0.hasSuffix("/ringing") }, "not acknowledged as ringing again")
        #expect(memory.load().unconfirmedAnswers.isEmpty)
        _ = second
    }

    @Test func aLatePushAfterARelaunchForACallThatEndedBeforeItsPushDoesNotRing() async throws {
        let memory = InMemoryCallMemoryStore()
        let transport = OutageTransport(clock: clock) { _ in false }
        let first = coordinator(ui: RecordingCallUI(), transport: transport, memory: memory)
        #expect(
            first.handleNotificationPush(
                try RingerJSON.encode(
                    AlertOrBackgroundPush(aps: .init(), ringer: .init(type: .callCancelled, callID: callID))))
                == .callCancelled)
        let ui = RecordingCallUI()
        let second = coordinator(ui: ui, transport: transport, memory: memory)
        #expect(second.handleVoIPPush(push()) == .alreadyEnded)
        #expect(ui.ended.map(\.1) == [.remoteEnded])
    }

    @Test func answeringThroughTheCoordinatorShowsTheCallAnsweredOnTheNativeUIOnce() async throws {
        let transport = OutageTransport(clock: clock) { _ in false }
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui: ui, transport: transport)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in answered.withLock { $0 = fulfilled } }
        #expect(await Self.eventually { answered.snapshot != nil })
        #expect(ui.answering == [uuid], "shown answering at the tap")
        #expect(ui.answered == [uuid])
        // The native UI's own answer action that follows (iOS requests one) completes at once, with no new accept.
        let native = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in native.withLock { $0 = fulfilled } }
        #expect(native.snapshot == true)
        #expect(ui.answered == [uuid])
        #expect(transport.count("/accept") == 1)
    }

    /// Answers every ringing acknowledgement with `status` (a problem without a call state).
    struct RingingRefusingTransport: HTTPTransport {
        let status: Int
        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            (status, try RingerJSON.encode(Problem(type: "about:blank", title: "HTTP \(status)", status: status)))
        }
    }

    @Test(arguments: [503, 429, 408])
    func aRingingAcknowledgementTheServerCouldNotAnswerLeavesTheCallRinging(_ status: Int) async throws {
        let ui = RecordingCallUI()
        let clock = self.clock
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui, now: { clock.now() },
            sleepUntil: { try await clock.sleep(until: $0) }, random: { 0.5 })
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: RingingRefusingTransport(status: status)))
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        // Three tries take under two seconds of the fast clock; the call must still ring after them.
        try await clock.sleep(until: clock.now().addingTimeInterval(5))
        #expect(ui.ended.isEmpty)
    }

    @Test func aDeclineMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() async throws {
        let start = clock.now()
        let transport = OutageTransport(clock: clock) {
            $0 > start.addingTimeInterval(1) && $0 < start.addingTimeInterval(61)
        }
        let actions = InMemoryPendingActionStore()
        let coordinator = coordinator(ui: RecordingCallUI(), transport: transport, actions: actions)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        try await clock.sleep(until: start.addingTimeInterval(1.5))
        coordinator.end(callID: uuid) { _ in }
        // Eight attempts with an 8-second cap span about a minute; the decline outlives them.
        #expect(await Self.eventually { transport.count("/decline") == 1 && actions.load().isEmpty })
        #expect(clock.now() >= start.addingTimeInterval(61))
    }

    @Test func aCancelMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() async throws {
        // The outage starts once the call is placed, however long that took on a loaded machine.
        let down = LockedValue<Date?>(nil)
        let transport = OutageTransport(clock: clock) { now in
            down.snapshot.map { now > $0 && now < $0.addingTimeInterval(60) } ?? false
        }
        let actions = InMemoryPendingActionStore()
        let coordinator = coordinator(ui: RecordingCallUI(), transport: transport, actions: actions)
        let call = try await coordinator.startCall(to: "bob")
        let start = clock.now()
        down.withLock { $0 = start }
        try await clock.sleep(until: start.addingTimeInterval(0.5))
        coordinator.end(callID: UUID(uuidString: call.callID)!) { _ in }
        #expect(actions.load().map(\.kind) == [.cancel])
        #expect(await Self.eventually { transport.count("/cancel") == 1 && actions.load().isEmpty })
        #expect(clock.now() >= start.addingTimeInterval(60))
    }

    @Test func anEndMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() async throws {
        // The outage starts once the answer is confirmed, however long that took on a loaded machine.
        let down = LockedValue<Date?>(nil)
        let transport = OutageTransport(clock: clock) { now in
            down.snapshot.map { now > $0 && now < $0.addingTimeInterval(60) } ?? false
        }
        let actions = InMemoryPendingActionStore()
        let coordinator = coordinator(ui: RecordingCallUI(), transport: transport, actions: actions)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in answered.withLock { $0 = fulfilled } }
        #expect(await Self.eventually { answered.snapshot != nil })
        #expect(answered.snapshot == true)
        let start = clock.now()
        down.withLock { $0 = start }
        try await clock.sleep(until: start.addingTimeInterval(0.5))
        coordinator.end(callID: uuid) { _ in }
        #expect(actions.load().map(\.kind) == [.end])
        #expect(await Self.eventually { transport.count("/end") == 1 && actions.load().isEmpty })
        #expect(clock.now() >= start.addingTimeInterval(60))
    }

    /// An accept caught in a connection that died with the network gets no answer until the transport's own timeout
    /// (URLSession: 60 s); it is abandoned after ``CallCoordinator/acceptAttemptLimit`` and sent again, so the call
    /// connects once the network is back instead of ringing out.
    @Test func anAcceptCaughtInADroppedConnectionIsSentAgainAfterTheAttemptLimit() async throws {
        let firstAccept = LockedValue(true)
        let transport = OutageTransport(
            clock: clock,
            hangs: { path in
                path.hasSuffix("/accept")
                    && firstAccept.withLock { first in
                        defer { first = false }
                        return first
                    }
            }
        ) { _ in false }
        let coordinator = coordinator(ui: RecordingCallUI(), transport: transport)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: uuid) { fulfilled in answered.withLock { $0 = fulfilled } }
        #expect(await Self.eventually { answered.snapshot != nil })
        #expect(answered.snapshot == true)
        // Without the limit the first accept would hold the answer past the 30 s ring.
        let accepts = transport.requests.filter { $0.contains("/accept") }
        #expect(accepts.first?.hasSuffix("(hung)") == true && accepts.last?.hasSuffix("/accept") == true)
    }
}
