import Foundation
import RingerTestSupport
import Testing

/// Memory comes back when sockets go: after a crowd of WebSockets closes, most of the RSS it took is handed
/// back (malloc_trim after a wave of closes). The sockets name no device, so nothing per device is kept.
@Suite(.serialized) struct IdleSocketMemoryTests {
    /// Opens `count` idle event sockets from a Python peer; the returned handle closes them on "quit".
    private func crowd(_ served: ServedRinger, token: String, count: Int) throws -> (Process, Pipe, Int) {
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        peer.arguments = [
            "python3", PeerScripts.path("ws_idle_peer.py"), String(served.port),
            "/v1/events?access_token=\(token)", String(count),
        ]
        let input = Pipe()
        let output = Pipe()
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

    @Test func mostOfTheRSSThatThreeThousandSocketsTookComesBackWhenTheyClose() async throws {
        // Three users of 1,000 sockets each: one user may hold at most --max-sockets-per-user (1,000 at most).
        let served = try ServedRinger(environment: [
            "RINGER_MAX_SOCKETS_PER_USER": "1000",
            "RINGER_RATE_LIMIT_EVENT_STREAM_CONNECTS_PER_MINUTE": "0",
        ])
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let token = try await served.token(for: "crowd")
        var tokens: [String] = []
        for index in 0..<3 { tokens.append(try await served.token(for: "crowd-\(index)")) }
        // A few sockets first bring in the code pages that stay whatever happens next.
        let (warm, warmInput, _) = try crowd(served, token: token, count: 20)
        try warmInput.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        warm.waitUntilExit()
        try await Task.sleep(for: .seconds(1))
        let baseline = served.status("VmRSS")

        let crowds = try tokens.map { try crowd(served, token: $0, count: 1000) }
        #expect(crowds.map(\.2) == [1000, 1000, 1000])
        let grown = served.status("VmRSS")
        for (peer, input, _) in crowds {
            try input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
            peer.waitUntilExit()
        }
        // The server trims its heap at most every 2 s after a wave of 64 closed sockets, and once more 2 s
        // later. What stays is the high-water mark of tables that do not shrink (about 3 MiB here), so most
        // but not all of the growth comes back; without the trim almost none did (glibc keeps freed heap).
        var after = served.status("VmRSS")
        // Up to 20 s: on a loaded machine (the parallel suite) the closes and the frees after them take longer.
        for _ in 0..<80 where Double(after - baseline) > 0.6 * Double(grown - baseline) {
            try await Task.sleep(for: .milliseconds(250))
            after = served.status("VmRSS")
        }
        #expect(grown - baseline > 3000, "3,000 sockets grew RSS by only \(grown - baseline) KiB")
        #expect(
            Double(after - baseline) <= 0.6 * Double(grown - baseline),
            "RSS \(baseline) KiB → \(grown) KiB with 3,000 sockets → \(after) KiB after they closed")
    }
}
