import Foundation
import RingerKit
import RingerKitAppleMirrored
import RingerTestSupport
import RingerWire
import Testing

/// A killed and relaunched app resumes its event stream where it stopped, per user, so what happened
/// while it was not running is replayed.
@Suite struct ResumePointTests {
    /// An unsigned JWT naming `sub`: the phone only reads the claim.
    static func userToken(_ subject: String) -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"HS256"}"#) + "." + part(#"{"sub":"\#(subject)"}"#) + ".c2ln"
    }

    /// Launches the app (a new RingerPhone, as after a kill) and logs `user` in.
    static func launch(suite: String, user: String) -> (RingerPhone, FakeWebSockets) {
        let sockets = FakeWebSockets()
        let phone = RingerPhone(
            server: URL(string: "http://127.0.0.1:9")!, deviceID: "shared-iphone",
            bundleID: "dev.ringer.demo", apnsEnvironment: .sandbox,
            pendingActions: InMemoryPendingActionStore(), callMemory: InMemoryCallMemoryStore(),
            http: FakeCallServer(),
            webSockets: sockets, queue: DispatchQueue(label: "test.calls"), defaultsSuite: suite)
        phone.logIn(userToken: userToken(user))
        return (phone, sockets)
    }

    static func since(_ sockets: FakeWebSockets) async -> String?? {
        guard await eventually(within: 5, { sockets.connections > 0 }) else { return .none }
        let query = URLComponents(url: sockets.urls[0], resolvingAgainstBaseURL: false)?.queryItems ?? []
        return .some(query.first { $0.name == "since" }?.value)
    }

    @Test func theAppHearsTheStreamStatus() async throws {
        let statuses = Recorder<EventStream.Status>()
        let sockets = FakeWebSockets()
        let phone = RingerPhone(
            server: URL(string: "http://127.0.0.1:9")!, deviceID: "shared-iphone",
            bundleID: "dev.ringer.demo", apnsEnvironment: .sandbox,
            pendingActions: InMemoryPendingActionStore(), callMemory: InMemoryCallMemoryStore(),
            http: FakeCallServer(),
            webSockets: sockets, queue: DispatchQueue(label: "test.calls"),
            streamStatus: { statuses.append($0) })
        phone.logIn(userToken: Self.userToken("bob"))
        #expect(await eventually(within: 5) { statuses.all == [.connected] })
        phone.logOut()
        #expect(statuses.all.last == .closed)
    }

    @Test func relaunchedAppResumesFromTheLastSeqItSawAndAnotherUserDoesNot() async throws {
        let suite = "ringer-resume-\(UUID().uuidString)"
        defer { UserDefaults.standard.removePersistentDomain(forName: suite) }

        let (first, firstSockets) = Self.launch(suite: suite, user: "bob")
        #expect(await Self.since(firstSockets) == .some(nil), "a first launch starts live")
        firstSockets.deliver(text: #"{"type":"stream.ready","seq":7}"#)
        try await Task.sleep(for: .milliseconds(50))
        first.logOut()

        let (second, secondSockets) = Self.launch(suite: suite, user: "bob")
        #expect(await Self.since(secondSockets) == .some("7"), "the server's resume point, though no event came")
        let call = Call(
            callID: UUID().uuidString.lowercased(), state: .cancelled, caller: Party(id: "alice"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: Date(), expiresAt: Date().addingTimeInterval(30))
        try secondSockets.deliver(CallEvent(seq: 9, type: .callCancelled, call: call))
        try await Task.sleep(for: .milliseconds(50))
        second.logOut()

        let (third, thirdSockets) = Self.launch(suite: suite, user: "bob")
        #expect(await Self.since(thirdSockets) == .some("9"))
        third.logOut()

        // Another user on the same phone never resumes bob's stream.
        let (carol, carolSockets) = Self.launch(suite: suite, user: "carol")
        #expect(await Self.since(carolSockets) == .some(nil))
        carol.logOut()
    }
}
