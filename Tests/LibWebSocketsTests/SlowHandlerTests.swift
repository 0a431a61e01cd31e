import Foundation
import LibWebSockets
import RingerHTTP
import RingerTestSupport
import Testing

/// A handler slower than libwebsockets' own 5 s default (its `timeout_secs`) still gets its answer to the
/// client: under load (a busy database, a saturated machine) the answer came late and the client got an
/// empty reply instead.
@Suite struct SlowHandlerTests {
    @Test func answerAfterSixSecondsStillReachesTheClient() async throws {
        let server = WebServer(configuration: .init()) { _ in
            try? await Task.sleep(for: .seconds(6))
            return .json(#"{"slow":true}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let result = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)/v1/slow"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix(#"{"slow":true}"#))
    }

    @Test func handlerSlowerThanTheRequestTimeoutClosesTheConnection() async throws {
        let server = WebServer(configuration: .init(requestTimeoutSeconds: 1)) { _ in
            try? await Task.sleep(for: .seconds(3))
            return .json(#"{"slow":true}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let result = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)/v1/slow"])
        #expect(result.status == 52)  // curl: empty reply from server
    }
}
