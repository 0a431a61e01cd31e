import Foundation
import HTTP2Server
import RingerHTTP
import Testing

/// A handler that answers `HTTPResponse.closeConnection` gets its request's connection cut, unanswered,
/// while the listener keeps serving (the FCM sandbox's `close` fault).
@Suite struct CloseConnectionResponseTests {
    @Test func closeConnectionCutsTheRequestsConnectionWithoutAnAnswer() async throws {
        let server = try await TestServer.start(handler: { request in
            request.path == "/cut" ? .closeConnection : .json(#"{"ok":true}"#)
        })
        defer { server.stop() }
        let cut = try await Curl.send("/cut", to: server)
        // 16: HTTP/2 framing layer problem; 56: failure receiving; 92: stream error: no answer either way.
        #expect(cut.exitCode != 0 && cut.status == 0, "\(cut.exitCode) \(cut.errorOutput)")
        let after = try await Curl.send("/fine", to: server)
        #expect(after.exitCode == 0 && after.status == 200)
    }
}
