import Foundation
import LibWebSockets
import RingerHTTP
import RingerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Idle WebSockets must cost the loop nothing per wake-up: they wait in epoll (libuv), not in a poll(2)
/// set scanned on every turn, and the server answers HTTP while hundreds of them are open.
@Suite struct IdleSocketLoopTests {
    /// The largest number of descriptors one epoll instance of this process watches (`tfd:` lines of
    /// /proc/self/fdinfo, proc(5)).
    private func largestEpollWatchCount() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
        return entries.map { entry in
            let info = (try? String(contentsOfFile: "/proc/self/fdinfo/\(entry)", encoding: .utf8)) ?? ""
            return info.components(separatedBy: "\n").filter { $0.hasPrefix("tfd:") }.count
        }.max() ?? 0
    }

    @Test func manyIdleWebSocketsWaitInEpollAndHTTPIsStillAnswered() async throws {
        let delegate = RecordingDelegate()
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { request in
            .json(#"{"path":"\#(request.path)"}"#)
        } webSocketHandler: { _, _ in
            .accept(delegate)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let crowd = Process()
        crowd.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        crowd.arguments = ["python3", PeerScripts.path("ws_idle_peer.py"), String(port), "/ws?n={i}", "300"]
        let input = Pipe()
        let output = Pipe()
        crowd.standardInput = input
        crowd.standardOutput = output
        try crowd.run()
        defer {
            try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
            crowd.waitUntilExit()
        }
        let lines = output.fileHandleForReading
        let opened = try #require(jsonObject(String(decoding: lines.readLine(), as: UTF8.self)))
        #expect(opened["open"] as? Int == 300)

        #expect(largestEpollWatchCount() >= 300)
        let (body, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/still-here")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"path":"/still-here"}"#)
        try input.fileHandleForWriting.write(contentsOf: Data("check\n".utf8))
        let checked = try #require(jsonObject(String(decoding: lines.readLine(), as: UTF8.self)))
        #expect(checked["open"] as? Int == 300)
    }
}

extension FileHandle {
    /// Bytes up to (not including) the next newline, read one at a time (a peer's line protocol).
    func readLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}
