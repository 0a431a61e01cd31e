import Foundation
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ringer serve` out of file descriptors (EMFILE at `accept`): it logs once per interval instead of once
/// per refused connection, does not spin, and keeps serving the connections it holds.
@Suite(.serialized) struct DescriptorExhaustionTests {
    /// A TCP connection to 127.0.0.1:`port` from this process, or nil when refused.
    /// - Parameter receiveBuffer: `SO_RCVBUF` in bytes, set before connecting (a client slow to read), or nil.
    private func connect(to port: Int, receiveBuffer: Int32? = nil) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if var bytes = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Opens up to `count` connections, sends `text` on each without waiting (what the socket does not take at once
    /// is dropped) and keeps them open: slow clients, for the caller to close.
    private func hold(_ count: Int, to port: Int, sending text: String, receiveBuffer: Int32? = nil) -> [Int32] {
        let bytes = Array(text.utf8)
        return (0..<count).compactMap { _ in
            guard let descriptor = connect(to: port, receiveBuffer: receiveBuffer) else { return nil }
            _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return descriptor
        }
    }

    /// Sends a GET /healthz on an open connection and returns the status line.
    private func healthz(on descriptor: Int32) -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The whole response (head and JSON body), so the next request on this connection reads only its own.
        while !(text.contains("\r\n\r\n") && text.hasSuffix("}")) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return text.components(separatedBy: "\r\n").first ?? ""
    }

    /// User plus system CPU seconds of process `pid` so far.
    private func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (proc(5)).
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func acceptOutOfDescriptorsIsLoggedOncePerIntervalWithoutSpinningAndOpenConnectionsAreServed() async throws {
        // 64 descriptors: the server's own files take about 20, so a few dozen connections exhaust it.
        let began = ContinuousClock.now
        // A connection budget above what the descriptors allow, so that accept itself runs out (the default budget
        // stops short of that: theSlowestConnectionsGiveWayAtTheBudgetAndANewClientIsServed).
        let served = try ServedRinger(descriptorLimit: 64, environment: ["RINGER_MAX_CONNECTIONS": "1000"])
        defer { served.stop() }
        let process = served.process
        let port = served.port

        var first: Int32?
        for _ in 0..<100 where first == nil {
            if let descriptor = connect(to: port) {
                if healthz(on: descriptor).contains("200") { first = descriptor } else { close(descriptor) }
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let held = try #require(first, "ringer serve did not answer")
        var connections = [held]
        defer { connections.forEach { close($0) } }
        // Far more connections than the server has descriptors for, over about two seconds.
        let cpuBefore = cpuSeconds(of: process.processIdentifier)
        for _ in 0..<20 {
            for _ in 0..<10 { if let descriptor = connect(to: port) { connections.append(descriptor) } }
            try await Task.sleep(for: .milliseconds(100))
        }
        let cpuUsed = cpuSeconds(of: process.processIdentifier) - cpuBefore

        #expect(healthz(on: held).contains("200"))
        let text = served.logText
        let reports = text.components(separatedBy: "\n").filter { $0.contains("accept failed") }
        // One line per 10 s interval (a loaded machine can stretch the run past one interval).
        let intervals = 1 + Int(began.duration(to: .now).components.seconds / 10)
        #expect((1...intervals).contains(reports.count), "log: \(text.suffix(2000))")
        #expect(reports.first?.contains("EMFILE") == true)
        #expect(!text.contains("accept: errno"))
        // A spinning accept loop burns a full core (about 2 s here); waiting costs next to nothing.
        #expect(cpuUsed < 0.8, "server used \(cpuUsed) s of CPU while out of descriptors")
    }

    /// Issue 26: with 15,800 slow-body connections held, a normal client waited up to 27 s. Under the default budget
    /// (the open-file limit less a reserve: 208 of 256 here) the slowest connections give way, and a new client is
    /// answered at once.
    @Test func theSlowestConnectionsGiveWayAtTheBudgetAndANewClientIsServed() async throws {
        let served = try ServedRinger(descriptorLimit: 256)
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let head =
            "POST /v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"user"
        let slow = hold(300, to: served.port, sending: head)
        defer { slow.forEach { close($0) } }
        // Past the budget's one-second grace for the first of them.
        try await Task.sleep(for: .milliseconds(1500))
        let started = ContinuousClock.now
        let fresh = try #require(connect(to: served.port))
        defer { close(fresh) }
        #expect(healthz(on: fresh).contains("200"))
        let waited = started.duration(to: .now)
        #expect(waited < .seconds(2), "a new client waited \(waited)")
        #expect(served.logText.contains("connection budget"), "\(served.logText.suffix(2000))")
        #expect(!served.logText.contains("EMFILE"), "\(served.logText.suffix(2000))")
    }

    /// Found by review (issue 26): a client that pipelines requests and never reads the answers kept its connection
    /// "being answered" forever, so 485 of them locked every new client out of a 480-connection budget for minutes.
    /// An answer the client does not read is slow like a trickled body: it gives way at the budget after a second,
    /// and its connection closes at the request deadline anyway.
    @Test func clientsThatNeverReadTheirAnswersGiveWayToANewClient() async throws {
        let served = try ServedRinger(descriptorLimit: 256)
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let requests = String(repeating: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", count: 3000)
        let stalled = hold(260, to: served.port, sending: requests, receiveBuffer: 1024)
        defer { stalled.forEach { close($0) } }
        // While the stalled answers still move, each connection keeps cycling through its pipelined requests;
        // once they stall for a second they are slow. Before, no new client was served for minutes. Served in 4-6 s
        // while `make test` runs everything alongside; 20 s allows for a slower machine and still fails the old
        // behaviour (an 8 s window once ran out on a loaded run).
        let started = ContinuousClock.now
        var served200 = false
        while !served200 && started.duration(to: .now) < .seconds(20) {
            try await Task.sleep(for: .milliseconds(250))
            guard let fresh = connect(to: served.port) else { continue }
            served200 = healthz(on: fresh).contains("200")
            close(fresh)
        }
        #expect(served200, "\(served.logText.suffix(2000))")
    }
}
