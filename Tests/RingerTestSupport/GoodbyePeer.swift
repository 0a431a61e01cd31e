public import Foundation

/// Tests/Peers/ws_goodbye_peer.py: many WebSockets held open with the Python `websockets` library, and how the
/// server closed each one (the close frame's code and reason, RFC 6455 §5.5.1, or none).
public enum GoodbyePeer {
    /// What the peer saw.
    public struct Report: Decodable, Sendable {
        /// How the server closed one socket.
        public struct Close: Decodable, Equatable, Sendable {
            /// The close frame's status code, or nil when the TCP connection ended without one (1006).
            public let code: Int?
            /// The close frame's reason, when there was a frame.
            public let reason: String?

            /// - Parameters:
            ///   - code: the status code expected.
            ///   - reason: the reason expected.
            public init(code: Int?, reason: String?) {
                self.code = code
                self.reason = reason
            }
        }

        /// One entry per socket the server closed.
        public let closes: [Close]
        /// Sockets the server had not closed when the peer gave up.
        public let stillOpen: Int

        enum CodingKeys: String, CodingKey {
            case closes
            case stillOpen = "still_open"
        }
    }

    /// Opens `count` sockets to `url`, runs `stop` once every one is open, and waits for the report.
    /// - Parameters:
    ///   - url: `ws://` address; `{i}` in it becomes the socket's index (e.g. `device_id=d{i}`).
    ///   - count: sockets to open.
    ///   - timeout: seconds the peer waits for the server to close them all.
    ///   - stop: whatever makes the server close them (its shutdown).
    /// - Returns: the report, with the number of sockets that opened.
    /// - Throws: ``TestSupportError`` when the peer does not start; decoding errors for a missing report.
    public static func run(
        url: String, count: Int, timeout: Double = 20, whenOpen stop: () async throws -> Void
    )
        async throws -> (opened: String, report: Report)
    {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("goodbye-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let peer = try await PeerProcess.start([
            "python3", PeerScripts.path("ws_goodbye_peer.py"), "--url", url,
            "--count", String(count), "--report", file.path,
            "--timeout", String(timeout),
        ])
        do {
            try await stop()
        } catch {
            await peer.stop(grace: 0)
            throw error
        }
        await peer.stop(grace: timeout + 5)
        return (peer.firstLine, try JSONDecoder().decode(Report.self, from: Data(contentsOf: file)))
    }
}
