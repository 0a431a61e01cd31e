import APNs
import Foundation
import HTTP2Client
import RingerSandbox
import RingerWire
import Testing

/// The sandbox's fault injection over HTTP (`/sandbox/faults`, `/sandbox/stats`), as a tool in another process
/// would use it, with the real APNs client observing the effect.
@Suite(.serialized) struct SandboxControlFaultTests {
    private struct Control {
        let http: HTTP2Client
        let base: String

        func send(_ method: String, _ path: String, json: String? = nil) async throws -> (status: Int, body: String) {
            let response = try await http.send(
                HTTP2Request(
                    url: base + path, method: method,
                    headers: json == nil ? [] : [.init("content-type", "application/json")],
                    body: Array((json ?? "").utf8), timeout: 10))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }

        func object(_ path: String) async throws -> [String: Any] {
            let (_, body) = try await send("GET", path)
            return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        }
    }

    private static func withControl(_ body: (SandboxFixture, Control, APNsClient) async throws -> Void) async throws {
        try await SandboxFixture.with { fixture in
            let http = try HTTP2Client(configuration: .init(caFile: fixture.caFile))
            defer { http.shutdown() }
            let client = try fixture.client { $0.voipRequestTimeout = 3 }
            defer { client.shutdown() }
            try await body(fixture, Control(http: http, base: "https://localhost:\(fixture.port)"), client)
        }
    }

    @Test("POST answer fault for one token with a count: those pushes get it, then normal answers; stats count them")
    func answerFaultWithCount() async throws {
        try await Self.withControl { fixture, control, client in
            let created = try await control.send(
                "POST", "/sandbox/faults",
                json: """
                    {"kind": "answer", "status": 503, "reason": "ServiceUnavailable", "token": "\(fixture.deviceToken.uppercased())", "count": 2}
                    """)
            #expect(created.status == 201)
            let listed = try await control.object("/sandbox/faults")
            #expect((listed["faults"] as? [[String: Any]])?.first?["count"] as? Int == 2)
            for _ in 0..<2 {
                let (response, _) = try await client.send(
                    fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
                #expect(response.status == 503)
                #expect(response.reason == .serviceUnavailable)
            }
            let (third, _) = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(third.status == 200)
            #expect((try await control.object("/sandbox/faults")["faults"] as? [Any])?.isEmpty == true)
            let stats = try await control.object("/sandbox/stats")
            #expect(stats["push_requests"] as? Int == 3)
            #expect(stats["accepted_pushes"] as? Int == 1)
            #expect(stats["connections"] as? Int == 2)  // the control client's and the APNs client's
        }
    }

    @Test("POST never_answer (persistent), DELETE clears it; connection faults are listed and cleared too")
    func persistentFaultAndClear() async throws {
        try await Self.withControl { fixture, control, client in
            #expect(
                try await control.send(
                    "POST", "/sandbox/faults", json: #"{"kind": "never_answer", "persistent": true}"#
                ).status == 201)
            #expect(
                try await control.send(
                    "POST", "/sandbox/faults", json: #"{"kind": "max_concurrent_streams", "value": 1}"#
                ).status == 201)
            #expect(
                try await control.send("POST", "/sandbox/faults", json: #"{"kind": "goaway", "after_streams": 50}"#)
                    .status == 201)
            for _ in 0..<2 {
                let error = await #expect(throws: APNsClientError.self) {
                    try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
                }
                #expect(error?.isTimeout == true)
            }
            let listed = try await control.object("/sandbox/faults")
            let connectionFaults = try #require(listed["connection_faults"] as? [[String: Any]])
            #expect(
                connectionFaults.contains {
                    $0["kind"] as? String == "max_concurrent_streams" && $0["value"] as? Int == 1
                })
            #expect(connectionFaults.contains { $0["kind"] as? String == "goaway" && $0["connections"] as? Int == 1 })
            #expect(try await control.send("DELETE", "/sandbox/faults").status == 204)
            #expect(fixture.sandbox.activeFaults.isEmpty && fixture.sandbox.activeConnectionFaults.isEmpty)
            let (response, _) = try await client.send(
                fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
        }
    }

    @Test(
        "POST max_concurrent_streams 0, or goaway/close after 0 streams for good, is refused, so DELETE /sandbox/faults stays reachable"
    )
    func faultsThatWouldLockOutTheControlRoutesAreRefused() async throws {
        try await Self.withControl { fixture, control, _ in
            let refused = try await control.send(
                "POST", "/sandbox/faults", json: #"{"kind": "max_concurrent_streams", "value": 0}"#)
            #expect(refused.status == 400)
            for kind in ["goaway", "close"] {
                let forGood = try await control.send(
                    "POST", "/sandbox/faults",
                    json: #"{"kind": "\#(kind)", "after_streams": 0, "persistent": true}"#)
                #expect(forGood.status == 400, "\(kind)")
            }
            #expect(fixture.sandbox.activeConnectionFaults.isEmpty)
            // With any of them in force, every stream of every connection was refused, this one included.
            #expect(try await control.send("DELETE", "/sandbox/faults").status == 204)
        }
    }

    @Test("POST close without after_streams cuts open connections now; bad fault bodies get 400")
    func closeNowAndValidation() async throws {
        try await Self.withControl { fixture, control, client in
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            // The control request's own connection is cut too, so its answer may be lost: ignore it.
            _ = try? await control.send("POST", "/sandbox/faults", json: #"{"kind": "close"}"#)
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(client.statistics(for: .sandbox).connectionsOpened == 2)
            for body in [
                #"{"kind": "explode"}"#, #"{"kind": "answer", "status": 99}"#, #"{"kind": "delay", "seconds": -1}"#,
                #"{"kind": "goaway"}"#, #"{"kind": "answer", "status": 500, "token": "xyz"}"#, "not json",
            ] {
                #expect(try await control.send("POST", "/sandbox/faults", json: body).status == 400, "\(body)")
            }
            #expect(fixture.sandbox.activeFaults.isEmpty)
        }
    }
}
