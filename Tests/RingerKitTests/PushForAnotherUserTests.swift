import Foundation
import RingerKit
import RingerWire
import Testing

/// A phone that changed hands (logout, another user logged in) while a VoIP push for the previous
/// user was in flight must report it (PushKit's rule) and never ring for it.
@Suite struct PushForAnotherUserTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// An unsigned compact JWT naming `sub`: the device reads the claim, the server checks the signature.
    static func userToken(_ subject: String) -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(#"{"sub":"\#(subject)","iat":1}"#) + ".c2ln"
    }

    func api(for user: String) -> RingerAPIClient {
        RingerAPIClient(
            baseURL: URL(string: "http://127.0.0.1:9")!, userToken: Self.userToken(user),
            transport: UnreachableTransport())
    }

    func push(callID: String, callee: String?) -> Data {
        let body = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice"), calleeID: callee, hasVideo: false,
                sentAt: now.unixMilliseconds,
                expiresAt: now.addingTimeInterval(30).unixMilliseconds))
        return try! RingerJSON.encode(body)
    }

    func coordinator(_ ui: RecordingCallUI) -> CallCoordinator {
        let fixed = now
        return CallCoordinator(deviceID: "shared-iphone", ui: ui, now: { fixed })
    }

    @Test func userIDIsTheSubjectOfTheUserToken() {
        #expect(api(for: "bob").userID == "bob")
        #expect(RingerAPIClient(baseURL: URL(string: "http://x")!, userToken: "opaque").userID == nil)
        #expect(RingerAPIClient(baseURL: URL(string: "http://x")!, userToken: "a.!!!.c").userID == nil)
    }

    @Test func pushForAnotherUserThanTheLoggedInOneIsReportedAndEndedAsFailed() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        coordinator.connect(api: api(for: "carol"))
        #expect(coordinator.handleVoIPPush(push(callID: UUID().uuidString, callee: "bob")) == .otherUser)
        #expect(ui.reports.count == 1)
        #expect(ui.ended.map(\.1) == [.failed])
        // The logged-in user's own calls, and payloads without a callee (older servers), still ring.
        #expect(coordinator.handleVoIPPush(push(callID: UUID().uuidString, callee: "carol")) == .ringing)
        #expect(coordinator.handleVoIPPush(push(callID: UUID().uuidString, callee: nil)) == .ringing)
        #expect(ui.ended.count == 1)
    }

    @Test func callRungDuringLaunchForThePreviousUserEndsWhenAnotherUserConnects() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let forBob = UUID().uuidString.lowercased()
        let forCarol = UUID().uuidString.lowercased()
        // Still launching: whose phone it is is not known yet, so both ring.
        #expect(coordinator.handleVoIPPush(push(callID: forBob, callee: "bob")) == .ringing)
        #expect(coordinator.handleVoIPPush(push(callID: forCarol, callee: "carol")) == .ringing)
        coordinator.connect(api: api(for: "carol"))
        #expect(ui.ended.map(\.0) == [UUID(uuidString: forBob)!])
        #expect(ui.ended.map(\.1) == [.failed])
    }

    @Test func loggingOutEndsCallsStillRinging() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        coordinator.connect(api: api(for: "bob"))
        #expect(coordinator.handleVoIPPush(push(callID: UUID().uuidString, callee: "bob")) == .ringing)
        coordinator.connect(api: nil)
        #expect(ui.ended.map(\.1) == [.failed])
    }
}
