import Foundation
import LibWebSockets
import RingerHTTP
import RingerTestSupport
import Testing

/// A handler that answers `HTTPResponse.closeConnection` gets its HTTP/1.1 connection closed unanswered,
/// while the server keeps serving (the FCM sandbox's `close` fault).
@Suite struct CloseConnectionResponseTests {
    @Test func closeConnectionClosesTheHTTP1ConnectionWithoutAnAnswer() async throws {
        let server = WebServer(configuration: .init()) { request in
            request.path == "/cut" ? .closeConnection : .json(#"{"ok":true}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let cut = try await ChildProcess.run([
            "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20",
            "-X", "POST", "--data", "{}", "http://127.0.0.1:\(port)/cut",
        ])
        // 52: empty reply from server.
        #expect(cut.status == 52, "\(cut.status) \(cut.standardError)")
        let after = try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/fine"])
        #expect(after.status == 0 && after.standardOutput == #"{"ok":true}"#)
    }
}
