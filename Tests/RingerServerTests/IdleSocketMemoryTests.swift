import Foundation
import RingerTestSupport
import Testing

/// Memory comes back when sockets go: after a crowd of WebSockets closes, `ringer serve`'s RSS returns
/// near where it was (freed heap is handed back with malloc_trim after a wave of closes).
@Suite(.serialized) struct IdleSocketMemoryTests {
    /// Opens `count` idle event sockets from a Python peer; the returned handle closes them on "quit".
    private func crowd(_ served: ServedRinger, token: String, count: Int) throws -> (Process, Pipe, Int) {
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        peer.arguments = ["python3", PeerScripts.path("ws_idle_peer.py"), String(served.port),
                          "/v1/events?device_id=d{i}&access_token=\(token)", String(count)]
        let input = Pipe(), output = Pipe()
        peer.standardInput = input
        peer.standardOutput = output
        try peer.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        let object = try JSONSerialization.jsonObject(with: line) as? [String: Any]
        return (peer, input, object?["open"] as? Int ?? 0)
    }

    @Test func rssReturnsNearBaselineAfterAThousandSocketsClose() async throws {
        let served = try ServedRinger()
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let token = try await served.token(for: "crowd")
        // A first wave of the same devices brings in what stays whatever happens next: code pages, pools,
        // the database's page cache for those devices.
        let (warm, warmInput, _) = try crowd(served, token: token, count: 1000)
        try warmInput.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        warm.waitUntilExit()
        try await Task.sleep(for: .seconds(3))
        let baseline = served.status("VmRSS")

        let (peer, input, open) = try crowd(served, token: token, count: 1000)
        #expect(open == 1000)
        try await Task.sleep(for: .milliseconds(500))
        let grown = served.status("VmRSS")
        try input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        peer.waitUntilExit()
        // The server trims its heap at most every 2 s once 64 sockets closed: allow a few ticks.
        var after = served.status("VmRSS")
        for _ in 0..<40 where after - baseline > (grown - baseline) / 4 {
            try await Task.sleep(for: .milliseconds(250))
            after = served.status("VmRSS")
        }
        #expect(grown - baseline > 1000, "1,000 sockets grew RSS by only \(grown - baseline) KiB")
        #expect(after - baseline <= (grown - baseline) / 4,
                "RSS \(baseline) KiB → \(grown) KiB with 1,000 sockets → \(after) KiB after they closed")
    }
}
