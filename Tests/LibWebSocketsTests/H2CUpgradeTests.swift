import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// `Upgrade: h2c` on a cleartext server: the request is answered over HTTP/1.1 as if the header were absent
/// (RFC 9110 §7.8), body and all, and the server goes on serving. lws 4.1.6 used to switch protocols, move the head
/// to stream 1 and crash (a null pointer in `strlen`) writing the answer: `curl --http2 http://…` took any server
/// down (issue 26). Checked with curl and with the Python `h2` library's own upgrade request.
@Suite struct H2CUpgradeTests {
    /// A plain-HTTP server echoing method, path, HTTP version and body length, and what it saw.
    private func withEchoServer(_ body: (Int, LockedValue<[HTTPRequest]>) async throws -> Void) async throws {
        let seen = LockedValue<[HTTPRequest]>([])
        let server = WebServer(configuration: .init()) { request in
            seen.withLock { $0.append(request) }
            return .json(
                #"{"method":"\#(request.method)","path":"\#(request.path)","version":\#(request.httpVersion),"len":\#(request.body.count)}"#
            )
        }
        let port = try server.start()
        defer { server.shutdown() }
        try await body(port, seen)
    }

    @Test func curlsH2CUpgradeIsAnsweredOverHTTP1AndTheServerKeepsServing() async throws {
        try await withEchoServer { port, _ in
            for path in ["/healthz", "/v1/devices", "/v1/events", "/nowhere"] {
                let result = try await ChildProcess.run([
                    "curl", "-sS", "-i", "--http2", "--max-time", "10",
                    "http://127.0.0.1:\(port)\(path)",
                ])
                #expect(result.status == 0, "\(path): \(result.standardError)")
                #expect(result.standardOutput.hasPrefix("HTTP/1.1 200"), "\(path): \(result.standardOutput)")
                #expect(!result.standardOutput.contains("101 Switching"), "\(path)")
                #expect(result.standardOutput.hasSuffix(#"{"method":"GET","path":"\#(path)","version":1,"len":0}"#))
            }
            let after = try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/after"])
            #expect(after.standardOutput.contains(#""path":"/after""#))
        }
    }

    @Test func anH2CUpgradeWithABodyReachesTheHandlerWhole() async throws {
        try await withEchoServer { port, seen in
            let result = try await ChildProcess.run([
                "curl", "-sS", "--http2", "--max-time", "10",
                "-H", "content-type: application/json", "--data-binary",
                #"{"callee":"bob"}"#, "http://127.0.0.1:\(port)/v1/calls",
            ])
            #expect(
                result.standardOutput == #"{"method":"POST","path":"/v1/calls","version":1,"len":16}"#,
                "\(result.standardOutput) \(result.standardError)")
            #expect(seen.snapshot.first?.bodyText == #"{"callee":"bob"}"#)
        }
    }

    @Test func theH2LibrarysUpgradeRequestGetsAnHTTP1Answer() async throws {
        try await withEchoServer { port, _ in
            for (method, body) in [("GET", ""), ("POST", #"{"x":1}"#)] {
                let outcome = try await PeerScripts.run("h2c_upgrade_peer.py", [String(port), method, "/h2c", body])
                let answer = try JSONDecoder().decode(Answer.self, from: Data(outcome.standardOutput.utf8))
                #expect(!answer.switched && answer.status == 200 && answer.version == "HTTP/1.1", "\(answer)")
                #expect(
                    answer.body.contains(#""method":"\#(method)""#)
                        && answer.body.contains(#""len":\#(body.utf8.count)"#))
            }
        }
    }

    /// HTTP/2 with prior knowledge (RFC 9113 §3.3) is not offered on cleartext: the connection is refused and
    /// nothing else is disturbed.
    @Test func priorKnowledgeIsRefusedWithoutHarm() async throws {
        try await withEchoServer { port, seen in
            let result = try await ChildProcess.run([
                "curl", "-sS", "--http2-prior-knowledge", "--max-time", "10",
                "http://127.0.0.1:\(port)/pk",
            ])
            #expect(result.status != 0)
            #expect(seen.snapshot.isEmpty)
            let after = try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/after"])
            #expect(after.standardOutput.contains(#""path":"/after""#))
        }
    }

    /// What h2c_upgrade_peer.py prints.
    struct Answer: Decodable {
        var switched: Bool
        var status: Int?
        var version: String?
        var body: String
    }
}
