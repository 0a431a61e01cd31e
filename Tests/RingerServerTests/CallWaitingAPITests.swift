import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// Call waiting through the HTTP API (docs/call-lifecycle.md "Call waiting"): `--call-waiting` and a call's
/// `call_waiting` decide whether a callee in an accepted call is rung as a waiting call or the call is `busy`.
@Suite(.serialized) struct CallWaitingAPITests {
    /// Bob in an accepted call with Alice, and Carol's token.
    static func bobInACall(_ http: TestHTTP) async throws -> (carol: String, bob: String) {
        let (_, _, bob) = try await AcceptedCallEndTests.acceptedCall(http)
        return (try await APITests.token(http, "carol", name: "Carol"), bob)
    }

    @Test func withCallWaitingOffACallToABusyCalleeIsBusyUnlessTheCallAsksToWait() async throws {
        try await APITests.withServer { http in
            let (carol, bob) = try await Self.bobInACall(http)
            let busy = try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#)
            #expect(try busy.decode(Call.self).state == .busy)
            #expect(busy.object["waiting"] == nil)
            let asked = try await http.send(
                "POST", "/v1/calls", token: carol, json: #"{"callee":"bob","call_waiting":true}"#)
            let waiting = try asked.decode(Call.self)
            #expect(waiting.state == .ringing && waiting.waiting == true)
            let read = try await http.send("GET", "/v1/calls/\(waiting.callID)", token: bob)
            #expect(read.object["waiting"] as? Bool == true)
            // Bob answers the waiting call: both calls are up, each ends on its own.
            let accepted = try await http.send(
                "POST", "/v1/calls/\(waiting.callID)/accept", token: bob, json: #"{"device_id":"bob-iphone"}"#)
            #expect(accepted.status == 200)
        }
    }

    @Test func withCallWaitingOnABusyCalleeRingsUnlessTheCallSaysNo() async throws {
        try await APITests.withServer(configure: { $0.callWaiting = true }) { http in
            let (carol, _) = try await Self.bobInACall(http)
            let rung = try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#)
            #expect(try rung.decode(Call.self).waiting == true)
            let refused = try await http.send(
                "POST", "/v1/calls", token: carol, json: #"{"callee":"bob","call_waiting":false}"#)
            #expect(try refused.decode(Call.self).state == .busy)
            // A free callee is never waiting.
            _ = try await APITests.token(http, "dave")
            try await APITests.registerPhone(
                http, token: try await APITests.token(http, "dave"), device: "dave-iphone",
                voip: String(repeating: "ef", count: 32))
            let free = try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"dave"}"#)
            #expect(free.object["waiting"] == nil)
        }
    }

    @Test func aCallWaitingThatIsNotABooleanIsRefusedAndStoresNothing() async throws {
        try await APITests.withServer { http in
            let (carol, _) = try await Self.bobInACall(http)
            APITests.expectProblem(
                try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"bob","call_waiting":"yes"}"#),
                status: 400, type: .malformedRequest)
            let list = try await http.send("GET", "/v1/calls", token: carol)
            #expect((list.object["calls"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theRingingPushSaysWaitingOnlyForAWaitingCall() throws {
        var call = Call(
            callID: "4f0c2a9e-8a1b-4c55-9d37-1e2f3a4b5c6d", state: .ringing, caller: Party(id: "carol"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: Date(timeIntervalSince1970: 1_800_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_800_000_045))
        let plain = try FCMPushSender.data(for: .ring, call: call, now: call.createdAt)["ringer"] ?? ""
        #expect(!plain.contains("waiting"), "other pushes' bytes are unchanged")
        call.waiting = true
        let fcm = try FCMPushSender.data(for: .ring, call: call, now: call.createdAt)["ringer"] ?? ""
        #expect(fcm.contains(#""waiting":true"#))
        let voip = try RingerJSON.decode(
            VoIPPush.self, from: try RingerJSON.encode(VoIPPush(ringer: .init(ringing: call, sentAt: call.createdAt))))
        #expect(voip.ringer.waiting == true)
    }
}
