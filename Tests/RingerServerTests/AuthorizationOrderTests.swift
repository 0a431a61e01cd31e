import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// Every call route authenticates, then finds the call and checks the caller may see it, and only then reads
/// the body: a stranger learns nothing from how the body is judged (issue 12, "Authorization in a fixed order").
@Suite struct AuthorizationOrderTests {
    @Test func aStrangerGetsTheSame404FromEveryCallRouteWhateverTheBodyHolds() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            let eve = try await APITests.token(http, "eve")
            _ = try await http.send(
                "PUT", "/v1/devices/eve-phone", token: eve,
                json: #"{"platform":"android","fcm_token":"eve-token"}"#)
            _ = try await http.send(
                "PUT", "/v1/devices/bob-phone", token: bob,
                json: #"{"platform":"android","fcm_token":"bob-token"}"#)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let bodies: [String?] = [
                #"{"device_id":"eve-phone"}"#, #"{"device_id":"no-such-device"}"#,
                #"{"device_id":"bob-phone"}"#, #"{"device_id": 7}"#, "not json", nil,
            ]
            var answers: [String: Int] = [:]
            for action in ["accept", "ringing", "decline"] {
                for body in bodies {
                    let response = try await http.send(
                        "POST", "/v1/calls/\(call.callID)/\(action)", token: eve, json: body)
                    answers["\(action) \(body ?? "none")"] = response.status
                    #expect(
                        response.object["type"] as? String == ProblemType.callNotFound.rawValue,
                        "\(action) \(body ?? "none")")
                }
            }
            for action in ["cancel", "end"] {
                answers[action] = try await http.send("POST", "/v1/calls/\(call.callID)/\(action)", token: eve).status
            }
            for path in ["", "/pushes", "/media"] {
                answers["GET\(path)"] = try await http.send("GET", "/v1/calls/\(call.callID)\(path)", token: eve).status
            }
            #expect(Set(answers.values) == [404], "\(answers)")
            // The call went on untouched, and still answers its parties as before.
            let bobsView = try (try await http.send("GET", "/v1/calls/\(call.callID)", token: bob)).decode(Call.self)
            #expect(bobsView.state == .ringing)
            #expect(
                try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                    json: #"{"device_id":"no-such-device"}"#
                ).status == 422)
        }
    }
}
