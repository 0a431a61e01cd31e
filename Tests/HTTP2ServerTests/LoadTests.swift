import Foundation
import HTTP2Server
import RingerHTTP
import RingerTestSupport
import Testing

/// Throughput smoke test with h2load (Debian's nghttp2-client), a third independent client.
@Suite(.serialized)
struct LoadTests {
    @Test("h2load: 2000 requests over 2 connections, 50 streams each at a time, all succeed")
    func h2load() async throws {
        let server = try await TestServer.start(handler: { request in
            .json(status: 200, "{}", headers: [("apns-id", request.header("apns-id") ?? "none")])
        })
        defer { server.stop() }
        let result = try await ChildProcess.check(
            [
                "h2load", "-n", "2000", "-c", "2", "-m", "50",
                "--header", "apns-topic: com.example.app.voip", "--header", "apns-push-type: voip",
                "--header", "apns-priority: 10", "--header", "authorization: bearer load.test.token",
                "https://localhost:\(server.port)/3/device/x",
            ], timeout: 120)
        let lines = result.standardOutput.split(whereSeparator: \.isNewline).map(String.init)
        let requests = lines.first { $0.hasPrefix("requests:") } ?? "no requests line in: \(result.standardOutput)"
        let statuses = lines.first { $0.hasPrefix("status codes:") } ?? ""
        let finished = lines.first { $0.hasPrefix("finished in") } ?? ""
        print("h2load against HTTP2Server: \(finished)")
        #expect(
            requests.contains("2000 total") && requests.contains("2000 succeeded") && requests.contains("0 failed"),
            "\(requests)")
        #expect(statuses.contains("2000 2xx"), "\(statuses)")
        #expect(server.log.all.count == 2000)
        #expect(server.log.all.allSatisfy { $0.headers["apns-topic"] == "com.example.app.voip" })
    }
}
