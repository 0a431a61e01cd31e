import Foundation
import HTTP2Client
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server that misbehaves frame by frame: Tests/Peers/h2_fault_peer.py (the `h2` library, no hypercorn).
/// Serialized: each test starts its own peer.
@Suite(.serialized) struct HTTP2ClientMisbehavingServerTests {
    /// Runs `body` with a fault peer started with `options`, and always stops it.
    private static func withPeer<T>(
        _ options: [String] = [],
        _ body: (_ port: Int, _ certificates: TestCertificates) async throws -> T
    ) async throws -> T {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let process = try await PeerProcess.start(
            [
                "python3", PeerScripts.path("h2_fault_peer.py"), "--cert", certificates.serverCertificate,
                "--key", certificates.serverKey,
            ] + options, timeout: 60)
        guard process.firstLine.hasPrefix("PORT "), let port = Int(process.firstLine.dropFirst(5)) else {
            _ = await process.stop()
            throw TestSupportError.setup("fault peer said \(process.firstLine)")
        }
        do {
            let result = try await body(port, certificates)
            _ = await process.stop()
            return result
        } catch {
            _ = await process.stop()
            throw error
        }
    }

    /// Ids of this process's threads. (The loop thread cannot be found by name: Foundation's `Thread.name`
    /// does not reach the kernel on Linux.)
    private static func threads() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
    }

    /// CPU seconds the given threads used so far (utime + stime from /proc/self/task/<id>/stat).
    private static func cpuSeconds(of threads: Set<String>) -> Double {
        var total = 0.0
        for thread in threads {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command come state (field 3) ... utime (14) and stime (15).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            total += (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        }
        return total / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func unacknowledgedPingWhileTheServerTalksDoesNotSpinTheLoop() async throws {
        try await Self.withPeer(["--no-ping-ack"]) { port, certificates in
            let others = Self.threads()  // other suites may run meanwhile: measure the threads the client started
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile, keepAliveInterval: 4))
            defer { client.shutdown() }
            let ours = Self.threads().subtracting(others)
            #expect(!ours.isEmpty)
            _ = try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30))
            let before = Self.cpuSeconds(of: ours)
            // Silent for 4 s: a PING goes out, due back by 8 s; the answer at 6 s proves the server alive, yet no
            // ACK ever comes. (Margins of 2 s each way: with 1.5 s, a peer slowed by the other suites' peers
            // starting answered too late about one run in three.)
            let response = try await client.send(HTTP2Request(url: "https://localhost:\(port)/delay/6000", timeout: 30))
            #expect(response.status == 200)
            // Past the PING's due time (8 s): a loop that kept treating it as due would spin from there on.
            try await Task.sleep(for: .seconds(4))
            let used = Self.cpuSeconds(of: ours) - before
            #expect(used < 0.5, "the loop thread used \(used) s of CPU in 10 s while waiting")
            // Keep-alive goes on after the missing ACK: the next PING after 4 s more of silence.
            #expect(await eventually(within: 10) { client.statistics.pingsSent >= 2 })
        }
    }

    @Test func protocolErrorByTheServerFailsTheRequestAtOnceNotAtItsDeadline() async throws {
        try await Self.withPeer { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            _ = try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30))
            let started = ContinuousClock.now
            // The peer breaks the protocol and keeps the TCP connection open: nghttp2 ends the session itself.
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(HTTP2Request(url: "https://localhost:\(port)/protocol-error", timeout: 30))
            }
            #expect(error?.transportFunction == "GOAWAY")
            #expect(error?.transportCode == 1)  // PROTOCOL_ERROR
            #expect(ContinuousClock.now - started < .seconds(10))
            let after = try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30))
            #expect(after.status == 200)
            #expect(!after.connectionReused)
        }
    }

    @Test func requestBodyGoesOutAsTheServerOpensATinyWindow() async throws {
        try await Self.withPeer(["--initial-window", "0", "--window-step", "1000"]) { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            // The first answer means the server's SETTINGS (initial window 0) are in force.
            _ = try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30))
            let body = [UInt8](repeating: 7, count: 100_000)
            let response = try await client.send(
                HTTP2Request(url: "https://localhost:\(port)/echo-size", body: body, timeout: 60))
            #expect(String(decoding: response.body, as: UTF8.self) == "100000")

            let started = ContinuousClock.now
            await #expect(throws: HTTP2ClientError.timedOut) {  // a window that never opens: the deadline still fires
                try await client.send(
                    HTTP2Request(url: "https://localhost:\(port)/stall", body: [1, 2, 3], timeout: 1))
            }
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test func interimResponseIsSkippedAndTrailersAreKept() async throws {
        try await Self.withPeer { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            let response = try await client.send(HTTP2Request(url: "https://localhost:\(port)/interim", timeout: 30))
            #expect(response.status == 200)
            #expect(response.body == Array("final".utf8))
            #expect(response.headers == ["x-final": "yes", "x-trailer": "done"])  // nothing of the 103
        }
    }

    @Test func responseHeaderListOverTheLimitFailsTheRequestAndKeepsTheConnection() async throws {
        try await Self.withPeer { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            // 100 fields of about 1 KB: over the 64 KiB the client advertises and accepts (and within what nghttp2
            // takes in CONTINUATION frames); 50 are under it.
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(HTTP2Request(url: "https://localhost:\(port)/many-headers/100", timeout: 30))
            }
            #expect(error?.transportFunction == "HTTP/2 HEADERS")
            #expect(error?.description.contains("exceeds") == true)
            let fine = try await client.send(
                HTTP2Request(url: "https://localhost:\(port)/many-headers/50", timeout: 30))
            #expect(fine.status == 200 && fine.headers.count == 50 && fine.connectionReused)
        }
    }

    @Test func requestHeadersTooLargeToSendFailOnceWithoutResends() async throws {
        try await Self.withPeer { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            let url = "https://localhost:\(port)/echo-size"
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(
                    HTTP2Request(
                        url: url, headers: [.init("x-huge", String(repeating: "h", count: 70_000))],
                        timeout: 30, connectionRetries: 3))
            }
            #expect(error?.transportFunction == "nghttp2_session_mem_send")
            #expect(error?.description.contains("hhhh") == false)  // never a header value
            #expect(client.statistics.streamsRefused == 0)
            #expect(client.statistics.requestsRetried == 0)
            let after = try await client.send(HTTP2Request(url: url, timeout: 30))
            #expect(after.status == 200 && after.connectionReused)
        }
    }

    @Test func requestsOverdueTogetherOnASilentConnectionAllTimeOut() async throws {
        try await Self.withPeer { port, certificates in
            let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
            defer { client.shutdown() }
            _ = try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30))
            // Four deadlines at the same instant (each timeout counts from its own hand-off, so it is computed
            // against one shared instant: tasks that start late on a busy machine still end together); the loop
            // finds them overdue in the same turn.
            let url = "https://localhost:\(port)/never"
            let deadline = ContinuousClock.now + .seconds(1.5)
            let results = await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            let left = ContinuousClock.now.duration(to: deadline)
                            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
                            _ = try await client.send(HTTP2Request(url: url, timeout: max(seconds, 0.001)))
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let timedOut = results.filter { ($0 as? HTTP2ClientError) == .timedOut }.count
            #expect(timedOut == 4, "\(results.map { $0.map { "\($0)" } ?? "answered" })")
            #expect(client.statistics.requestsTimedOut == 4)
            // The next request passes through the loop after the recycling, so the counter is settled.
            #expect(
                try await client.send(HTTP2Request(url: "https://localhost:\(port)/echo-size", timeout: 30)).status
                    == 200)
            #expect(client.statistics.connectionsRecycled == 1)
        }
    }
}
