import Foundation
import RingerSupport
import RingerWire
import Testing

@testable import RingerKit

/// Defect B of issue 13: whether a push is past its ring deadline is judged on the server's timeline, through
/// the clock offset the phone learned from the server, never on the phone's own clock alone.
@Suite struct ServerClockTests {
    /// The server's clock: pushes are stamped with it.
    let serverNow = Date(timeIntervalSince1970: 1_800_000_000)

    /// A push the server sent `age` seconds ago for a call that rings 30 s.
    func push(_ callID: String, sentSecondsAgo age: TimeInterval) -> Data {
        let sent = serverNow.addingTimeInterval(-age)
        let body = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice"), hasVideo: false,
                sentAt: sent.unixMilliseconds,
                expiresAt: sent.addingTimeInterval(30).unixMilliseconds))
        return try! RingerJSON.encode(body)
    }

    /// The phone's boot time on its wall clock, as a coordinator reads it.
    static let bootTime = Date(timeIntervalSince1970: 1_799_990_000)

    /// A logged-in coordinator on a phone clock `skew` seconds off the server's.
    func coordinator(
        _ ui: any CallUI, skew: TimeInterval, store: any ClockOffsetStore = InMemoryClockOffsetStore(),
        transport: any HTTPTransport = UnreachableTransport(),
        bootTime: @escaping @Sendable () -> Date = { ServerClockTests.bootTime }
    ) -> CallCoordinator {
        let phoneNow = serverNow.addingTimeInterval(skew)
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui, now: { phoneNow }, clockOffsets: store,
            bootTime: bootTime)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: transport))
        return coordinator
    }

    @Test(arguments: [120.0, -120.0])
    func aFreshPushRingsWhateverThePhonesClockSaysOnceTheOffsetIsLearned(_ skew: TimeInterval) {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui, skew: skew)
        coordinator.serverTimeObserved(serverNow)  // stream.ready's server_time_ms
        #expect(coordinator.clockOffset == -skew)
        #expect(coordinator.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        #expect(ui.ended.isEmpty)
    }

    @Test func aPushThatExpiredFiftyFiveSecondsAgoOnAPhoneTwoMinutesSlowIsReportedAndEndedUnanswered() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui, skew: -120)
        coordinator.serverTimeObserved(serverNow)
        #expect(coordinator.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 85)) == .expired)
        #expect(ui.ended.map(\.1) == [.unanswered])
    }

    @Test func aFreshPushOnAPhoneTwoMinutesFastRingsWhileTheOffsetIsUnknown() {
        let ui = RecordingCallUI()
        #expect(coordinator(ui, skew: 120).handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        #expect(ui.ended.isEmpty)
    }

    @Test func whileTheOffsetIsUnknownALatePushRingsAndTheServersAnswerToRingingEndsIt() async {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        let conflict = Problem(
            type: ProblemType.callStateConflict.rawValue, title: "Conflict", status: 409,
            callState: .unanswered)
        let server = RefusingTransport(problem: conflict)
        let coordinator = coordinator(ui, skew: -120, transport: server)
        #expect(coordinator.handleVoIPPush(push(callID, sentSecondsAgo: 85)) == .ringing)
        #expect(await DurableHangUpTests.eventually { ui.ended.map(\.1) == [.unanswered] })
    }

    @Test func theLearnedOffsetIsKeptAcrossLaunches() {
        let store = InMemoryClockOffsetStore()
        let first = coordinator(RecordingCallUI(), skew: 120, store: store)
        first.serverTimeObserved(serverNow)
        #expect(store.load()?.offset == -120)
        // The next launch judges the first push on the kept offset, before any stream connected.
        let ui = RecordingCallUI()
        let second = coordinator(ui, skew: 120, store: store)
        #expect(second.clockOffset == -120)
        #expect(second.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        #expect(second.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 40)) == .expired)
    }

    /// The reviewer's case: a phone 2 minutes slow learns +120 s; the clock is then corrected and the app killed.
    /// The corrected clock moved the boot time by the same 2 minutes, so the kept offset is dropped and a fresh
    /// push rings (it would otherwise be judged 90 s stale and never ring: defect B again).
    @Test func aStoredOffsetFromBeforeTheWallClockWasSetIsDroppedAndAFreshPushRings() {
        let store = InMemoryClockOffsetStore()
        store.save(StoredClockOffset(offset: 120, bootTime: Self.bootTime))
        let ui = RecordingCallUI()
        let corrected = coordinator(ui, skew: 0, store: store, bootTime: { Self.bootTime.addingTimeInterval(120) })
        #expect(corrected.clockOffset == nil)
        #expect(corrected.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        #expect(ui.ended.isEmpty)
        // Same boot, clock untouched: the kept offset holds.
        #expect(coordinator(RecordingCallUI(), skew: 0, store: store).clockOffset == 120)
    }

    @Test func anOffsetLearnedInARunningAppIsForgottenWhenTheWallClockIsSet() {
        let store = InMemoryClockOffsetStore()
        let boot = LockedValue(Self.bootTime)
        let ui = RecordingCallUI()
        let phoneNow = LockedValue(serverNow.addingTimeInterval(-120))
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui, now: { phoneNow.snapshot }, clockOffsets: store,
            bootTime: { boot.snapshot })
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: UnreachableTransport()))
        coordinator.serverTimeObserved(serverNow)
        #expect(coordinator.clockOffset == 120)
        #expect(store.load() == StoredClockOffset(offset: 120, bootTime: Self.bootTime))
        // The network's time corrects the phone's clock by 2 minutes; no new sample has arrived yet.
        phoneNow.withLock { $0 = serverNow }
        boot.withLock { $0 = Self.bootTime.addingTimeInterval(120) }
        #expect(coordinator.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        #expect(ui.ended.isEmpty)
        #expect(coordinator.clockOffset == nil)
        #expect(store.load() == nil)
        // A second's drift of the boot time is not a clock change.
        coordinator.serverTimeObserved(serverNow)
        boot.withLock { $0 = $0.addingTimeInterval(1) }
        _ = coordinator.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1))
        #expect(coordinator.clockOffset == 0)
    }

    @Test func samplesDelayedOnTheWayRefineTheOffsetAndAClockChangeReplacesIt() {
        var machine = PhoneCallMachine(deviceID: "bob-iphone")
        let phone = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(machine.handle(.serverTime(phone.addingTimeInterval(4.25)), at: phone) == [.saveClockOffset(4.25)])
        // Less delayed: larger, kept. More delayed: smaller, ignored.
        #expect(machine.handle(.serverTime(phone.addingTimeInterval(4.75)), at: phone) == [.saveClockOffset(4.75)])
        #expect(machine.handle(.serverTime(phone.addingTimeInterval(4.5)), at: phone).isEmpty)
        // The phone's clock was set: the new sample replaces the offset.
        #expect(machine.handle(.serverTime(phone.addingTimeInterval(-60)), at: phone) == [.saveClockOffset(-60)])
    }

    @Test func theDateHeaderOfTheServersAnswersTeachesTheOffset() async {
        let ui = RecordingCallUI()
        // The phone is 2 min fast; the server (or its proxy) dates its answers.
        let coordinator = coordinator(ui, skew: 120, transport: DatingTransport(date: "Fri, 15 Jan 2027 08:00:00 GMT"))
        #expect(coordinator.handleVoIPPush(push(UUID().uuidString, sentSecondsAgo: 1)) == .ringing)
        // The ringing acknowledgement's answer said 08:00:00 (read as 08:00:00.5), the phone read 08:02:00.
        #expect(await DurableHangUpTests.eventually { coordinator.clockOffset == -119.5 })
    }

    @Test func onlyTheIMFFixdateFormOfTheDateHeaderIsRead() {
        #expect(RingerAPIClient.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(RingerAPIClient.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(RingerAPIClient.httpDate("soon") == nil)
    }

    @Test func streamReadyCarriesTheServersTimeInMilliseconds() throws {
        let frame = StreamReady(seq: 41, serverTime: Date(timeIntervalSince1970: 1_767_225_600.123))
        let json = String(decoding: try RingerJSON.encode(frame), as: UTF8.self)
        #expect(json.contains(#""server_time_ms":1767225600123"#))
        let old = try RingerJSON.decode(StreamReady.self, from: Data(#"{"type":"stream.ready","seq":3}"#.utf8))
        #expect(old.serverTimeMs == nil && old.seq == 3)
    }
}

/// Answers every request with one problem.
struct RefusingTransport: HTTPTransport {
    let problem: Problem
    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        (problem.status, try RingerJSON.encode(problem))
    }
}

/// Answers every request 200 with a `{}` body and a fixed `Date` header.
struct DatingTransport: HTTPTransport {
    let date: String
    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        (200, Data("{}".utf8))
    }
    func sendReadingDate(
        method: String, url: URL, headers: [String: String],
        body: Data?
    ) async throws -> (status: Int, body: Data, date: String?) {
        (200, Data(#"{"call_id":"x"}"#.utf8), date)
    }
}
