import Foundation
import RingerServer
import RingerTestSupport
import Testing

/// The event socket takes only small control messages from clients: a client cannot make the server
/// buffer more than ``RingerServer/maxEventSocketMessageBytes`` (4 KiB) per socket.
@Suite struct EventSocketLimitsTests {
    /// Connects with the Python `websockets` client, sends one message of `bytes`, waits a moment for a
    /// close and returns what the peer saw.
    /// - Parameter timeout: how long the peer waits for a close: long enough for a loaded machine when a close is
    ///   expected (the parallel `make test` once starved the peer past 1.5 s), short when none is.
    private func send(bytes: Int, to http: TestHTTP, token: String, timeout: Double) async throws -> [String: Any] {
        let url =
            http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://")
            + "/v1/events?device_id=limits&access_token=\(token)"
        let result = try await PeerScripts.run(
            "ws_client_peer.py",
            [
                "--url", url, "--send-bytes", String(bytes),
                "--expect", "100", "--timeout", String(timeout),
            ])
        let line = try #require(result.standardOutput.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func messageOverFourKiBClosesTheEventSocketWith1009AndOneOfFourKiBDoesNot() async throws {
        #expect(RingerServer.maxEventSocketMessageBytes == 4096)
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let tooBig = try await send(bytes: 5 * 1024, to: http, token: alice, timeout: 10)
            #expect(tooBig["connected"] as? Bool == true)
            #expect(tooBig["closed_by_server"] as? Bool == true)
            #expect(tooBig["close_code"] as? Int == 1009)
            let fits = try await send(bytes: 4 * 1024, to: http, token: alice, timeout: 1.5)
            #expect(fits["connected"] as? Bool == true)
            #expect(fits["closed_by_server"] as? Bool == false)
            #expect(fits["timeout"] as? Bool == true)
        }
    }
}
