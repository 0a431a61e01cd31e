import Foundation
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// The server and docs/openapi.yaml agree exactly, checked from outside by independent peers: every documented
/// operation is routed and every other method of a documented path gets 405 with `Allow`
/// (Tests/Peers/route_parity_peer.py), and schemathesis (PyPI) finds no 5xx and no conformance failure with
/// generated requests, as a user and as the admin (issue 12, items 9 and "Also required").
@Suite(.serialized) struct SpecConformanceTests {
    /// Generated requests per operation: 15 in `make test`, more in `make fuzz` (`RINGER_FUZZ_EXAMPLES`).
    static let examples = ProcessInfo.processInfo.environment["RINGER_FUZZ_EXAMPLES"] ?? "15"

    static let spec = PeerScripts.directory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml").path

    /// A server with its rate limits off (generated requests come fast from one address), a user with a
    /// call of theirs and a device.
    private func withServer(_ body: (TestHTTP, _ user: String, _ callID: String) async throws -> Void) async throws {
        try await APITests.withServer(configure: { $0.rateLimits = .off }) { http in
            let alice = try await APITests.token(http, "alice")
            _ = try await APITests.token(http, "bob")
            _ = try await http.send(
                "PUT", "/v1/devices/alice-phone", token: alice,
                json: #"{"platform":"android","fcm_token":"alice-token"}"#)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            try await body(http, alice, call.callID)
        }
    }

    @Test func theRouterAndTheSpecListTheSameOperations() async throws {
        try await withServer { http, alice, callID in
            let outcome = try await ChildProcess.run([
                "python3", PeerScripts.path("route_parity_peer.py"), Self.spec,
                http.base.absoluteString, alice, APITests.adminKey, callID,
                "alice-phone",
            ])
            #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        }
    }

    @Test func schemathesisFindsNoServerErrorAndNoConformanceFailure() async throws {
        try await withServer { http, alice, _ in
            for bearer in [alice, APITests.adminKey] {
                let outcome = try await ChildProcess.run(
                    [
                        "python3", PeerScripts.path("spec_conformance.py"), Self.spec,
                        http.base.absoluteString, bearer, Self.examples,
                    ],
                    in: FileManager.default.temporaryDirectory, timeout: 1800)
                #expect(
                    outcome.status == 0, "\(outcome.standardOutput.suffix(6000))\(outcome.standardError.suffix(2000))")
            }
        }
    }
}
