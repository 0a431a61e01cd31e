import Foundation
import RingerTestSupport

/// Runs Tests/Peers/h2_server_client_peer.py (the `h2` package over `ssl`) against a test server.
enum Peer {
    /// One response as the peer saw it.
    struct Response: Decodable {
        let streamID: Int
        let status: Int?
        let headers: [String: String]
        let body: String
        let reset: Int?
        let elapsed: Double?

        private enum CodingKeys: String, CodingKey {
            case status, headers, body, reset, elapsed
            case streamID = "streamId"
        }
    }

    /// A GOAWAY frame the peer received.
    struct GoAway: Decodable {
        let lastStreamID: Int
        let errorCode: Int

        private enum CodingKeys: String, CodingKey {
            case errorCode
            case lastStreamID = "lastStreamId"
        }
    }

    /// The peer's JSON report; which keys are present depends on the scenario.
    struct Report: Decodable {
        let responses: [Response]?
        let goaway: GoAway?
        let closed: Bool?
        let initial: Int?
        let updated: Int?
        let newConnection: Int?
        let handshake: String?
        let error: String?
        let alpn: String?
        let status: Int?
        let bytesReceived: Int?
        let sentBytes: Int?
        let requestsSent: Int?
        let elapsed: Double?
    }

    static let script = PeerScripts.path("h2_server_client_peer.py")

    /// Runs one scenario.
    /// - Parameters:
    ///   - scenario: Scenario name and its options, e.g. `["goaway", "--requests", "5"]`.
    ///   - server: The server to talk to.
    ///   - timeout: The peer's per-wait timeout in seconds (how long it waits for something that may not come).
    /// - Returns: The decoded report.
    static func run(_ scenario: [String], against server: TestServer, timeout: Double = 20) async throws -> Report {
        let result = try await ChildProcess.check(
            [
                "python3", script, "--port", String(server.port),
                "--ca", server.certificates.caFile, "--timeout", String(timeout),
            ]
                + scenario, timeout: 60)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Report.self, from: Data(result.standardOutput.utf8))
    }
}
