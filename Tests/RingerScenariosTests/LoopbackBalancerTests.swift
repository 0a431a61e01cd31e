import Foundation
import RingerScenarios
import RingerSupport
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The TCP balancer in front of a cluster's nodes: stickiness, fail-over, health marks, closes.
@Suite struct LoopbackBalancerTests {
    @Test func bytesRelayBothWaysToThePreferredNode() throws {
        let nodes = try [EchoNode(0), EchoNode(1)]
        defer { nodes.forEach { $0.stop() } }
        let balancer = LoopbackBalancer(backends: nodes.map(\.port))
        defer { balancer.shutdown() }
        let client = try TestClient(port: balancer.front(preferring: 1))
        defer { client.close() }
        #expect(client.receive(EchoNode.greeting(1).count) == EchoNode.greeting(1))
        #expect(balancer.openConnections == [0, 1])

        // Several 64 KiB chunks each way, sent from another thread while this one reads.
        let payload = (0..<300_000).map { _ in UInt8.random(in: 0...255) }
        let sent = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.send(payload)
            sent.signal()
        }
        let echoed = client.receive(payload.count)
        #expect(sent.wait(timeout: .now() + 10) == .success)
        #expect(echoed.count == payload.count)
        // Compared as a Bool: a failure printing 300 000 bytes twice takes minutes.
        let firstDifference = echoed.indices.first { echoed[$0] != payload[$0] }
        #expect(firstDifference == nil, "the echo differs from the payload at byte \(firstDifference ?? 0)")
    }

    @Test func aRefusedNodeSendsTheConnectionToTheNextNodeWrappingAround() async throws {
        let refusing = try ClosedPort()
        let nodes = try [EchoNode(0), EchoNode(2)]
        defer { nodes.forEach { $0.stop() } }
        let balancer = LoopbackBalancer(backends: [nodes[0].port, refusing.port, nodes[1].port])
        defer { balancer.shutdown() }

        let skipping = try TestClient(port: balancer.front(preferring: 1))
        defer { skipping.close() }
        #expect(skipping.receive(EchoNode.greeting(2).count) == EchoNode.greeting(2))

        nodes[1].stop()
        // Node 2 now refuses too, so the next after node 1 is node 0, past the end of the list.
        let wrapping = try TestClient(port: balancer.front(preferring: 1))
        defer { wrapping.close() }
        #expect(wrapping.receive(EchoNode.greeting(0).count) == EchoNode.greeting(0))
        #expect(await eventually(within: 5) { balancer.openConnections == [1, 0, 0] })

        let lonely = LoopbackBalancer(backends: [refusing.port])
        defer { lonely.shutdown() }
        let unserved = try TestClient(port: lonely.front(preferring: 0))
        defer { unserved.close() }
        #expect(unserved.seesClose(within: 5), "a connection no node takes is closed")
    }

    @Test func aNodeMarkedDownLosesItsConnectionsAtOnceAndGetsNoNewOnesUntilMarkedUp() async throws {
        let nodes = try [EchoNode(0), EchoNode(1)]
        defer { nodes.forEach { $0.stop() } }
        let balancer = LoopbackBalancer(backends: nodes.map(\.port))
        defer { balancer.shutdown() }
        let port = try balancer.front(preferring: 0)

        let first = try TestClient(port: port)
        defer { first.close() }
        #expect(first.receive(EchoNode.greeting(0).count) == EchoNode.greeting(0))
        #expect(balancer.openConnections == [1, 0])

        let marked = ContinuousClock.now
        balancer.setDown(0, true)
        // Node 0 itself keeps the connection open: only the balancer can end it.
        #expect(first.seesClose(within: 5))
        #expect(ContinuousClock.now - marked < .seconds(2), "closed only after \(ContinuousClock.now - marked)")
        #expect(await eventually(within: 5) { balancer.openConnections == [0, 0] })

        let second = try TestClient(port: port)
        defer { second.close() }
        #expect(second.receive(EchoNode.greeting(1).count) == EchoNode.greeting(1))
        #expect(balancer.openConnections == [0, 1])

        balancer.setDown(0, false)
        let third = try TestClient(port: port)
        defer { third.close() }
        #expect(third.receive(EchoNode.greeting(0).count) == EchoNode.greeting(0))
        third.send(Array("ping".utf8))
        #expect(third.receive(4) == Array("ping".utf8))
        #expect(balancer.openConnections == [1, 1])
    }

    @Test func aBackendClosingItsSideClosesTheClientsConnection() async throws {
        try await Self.withGreetedClient { node, balancer, client in
            #expect(!client.seesClose(within: 0.3), "closed before the backend closed")
            node.dropConnections()
            #expect(client.seesClose(within: 5))
            #expect(await eventually(within: 5) { balancer.openConnections == [0] })
        }
    }

    /// One node, a balancer in front, and a client through it that got the node's greeting, for `body`.
    private static func withGreetedClient(
        _ body: (EchoNode, LoopbackBalancer, TestClient) async throws -> Void
    ) async throws {
        let node = try EchoNode(0)
        defer { node.stop() }
        let balancer = LoopbackBalancer(backends: [node.port])
        defer { balancer.shutdown() }
        let client = try TestClient(port: balancer.front(preferring: 0))
        defer { client.close() }
        #expect(client.receive(EchoNode.greeting(0).count) == EchoNode.greeting(0))
        try await body(node, balancer, client)
    }

    /// A client that sends its request and then shuts down its sending side (a half-close, RFC 9293 3.6) still gets
    /// the whole answer: the FIN reaches the node only after the bytes before it, and the node's answer after it
    /// reaches the client, then the node's own FIN.
    @Test func aClientThatHalfClosesStillGetsTheNodesWholeAnswer() async throws {
        let node = try EchoNode(0)
        defer { node.stop() }
        let balancer = LoopbackBalancer(backends: [node.port])
        defer { balancer.shutdown() }
        for _ in 0..<20 {
            let client = try TestClient(port: balancer.front(preferring: 0))
            defer { client.close() }
            let request = (0..<20_000).map { _ in UInt8.random(in: 0...255) }
            client.send(request)
            client.shutdownSending()
            let answer = client.receive(EchoNode.greeting(0).count + request.count)
            #expect(
                answer.count == EchoNode.greeting(0).count + request.count, "the answer after the client's FIN was cut")
            #expect(Array(answer.dropFirst(EchoNode.greeting(0).count)) == request)
            // The node closed once it read the FIN: the client sees that close.
            #expect(client.seesClose(within: 5))
        }
        #expect(await eventually(within: 5) { balancer.openConnections == [0] })
    }

    /// A node that ends its side while the client stays silent does not hold the relay forever: a half-closed
    /// connection is closed after ``LoopbackBalancer/halfClosedLinger`` seconds, as HAProxy's `timeout client-fin`.
    @Test func aHalfClosedConnectionIsClosedAfterItsLinger() async throws {
        try await Self.withGreetedClient { node, balancer, client in
            node.shutdownSending()
            #expect(client.seesClose(within: 5), "the node's FIN never reached the client")
            #expect(balancer.openConnections == [1], "the client may still send")
            #expect(await eventually(within: LoopbackBalancer.halfClosedLinger + 3) { balancer.openConnections == [0] })
        }
    }

    @Test func shutdownClosesFrontPortsAndConnectionsAndMayBeCalledTwice() throws {
        let nodes = try [EchoNode(0), EchoNode(1)]
        defer { nodes.forEach { $0.stop() } }
        let balancer = LoopbackBalancer(backends: nodes.map(\.port))
        let ports = try [balancer.front(preferring: 0), balancer.front(preferring: 1)]
        let clients = try ports.map { try TestClient(port: $0) }
        defer { clients.forEach { $0.close() } }
        for (node, client) in clients.enumerated() {
            #expect(client.receive(EchoNode.greeting(node).count) == EchoNode.greeting(node))
        }
        #expect(balancer.openConnections == [1, 1])

        balancer.shutdown()
        // shutdown joined the relay threads, so nothing is left open once it returns.
        #expect(balancer.openConnections == [0, 0])
        for client in clients { #expect(client.seesClose(within: 5)) }
        for port in ports { #expect(throws: (any Error).self) { try TestClient(port: port) } }
        balancer.shutdown()
        #expect(throws: LoopbackBalancer.UsageError.shutDown) { try balancer.front(preferring: 0) }
    }

    @Test func aPreferredNodeThatDoesNotExistIsAClearError() {
        let balancer = LoopbackBalancer(backends: [1])
        defer { balancer.shutdown() }
        #expect(throws: LoopbackBalancer.UsageError.noSuchNode(3, nodes: 1)) { try balancer.front(preferring: 3) }
        balancer.setDown(7, true)
        #expect(balancer.openConnections == [0])
    }
}

/// A TCP server on 127.0.0.1 that greets each connection with "node N\n" and then echoes what it reads, so
/// a test knows which node answered. Descriptors are closed only by their owning thread.
private final class EchoNode: Sendable {
    let node: Int
    let port: Int
    private let state = LockedValue(EchoState())
    private let threads = DispatchGroup()

    private struct EchoState {
        var stopping = false
        var connections: Set<Int32> = []
    }

    static func greeting(_ node: Int) -> [UInt8] { Array("node \(node)\n".utf8) }

    init(_ node: Int) throws {
        self.node = node
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestClientError.failed("socket", errno) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            closeDescriptor(listener)
            throw TestClientError.failed("bind", code)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptLoop(listener)
            threads.leave()
        }
    }

    private func acceptLoop(_ listener: Int32) {
        defer { closeDescriptor(listener) }
        while !state.withLock({ $0.stopping }) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = acceptCloseOnExec(listener)
            guard connection >= 0 else { continue }
            let registered = state.withLock { state in
                if state.stopping { return false }
                state.connections.insert(connection)
                threads.enter()
                return true
            }
            guard registered else {
                closeDescriptor(connection)
                continue
            }
            Thread.detachNewThread { [self] in
                echo(connection)
                threads.leave()
            }
        }
    }

    private func echo(_ connection: Int32) {
        var buffer = EchoNode.greeting(node)
        if sendAll(connection, buffer) {
            buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0, sendAll(connection, Array(buffer[0..<count])) else { break }
            }
        }
        state.withLock { _ = $0.connections.remove(connection) }
        closeDescriptor(connection)
    }

    /// Sends a FIN on every connection; the node still reads and echoes (into a socket shut for sending: lost).
    func shutdownSending() {
        state.withLock { state in
            for connection in state.connections { shutdown(connection, Int32(SHUT_WR)) }
        }
    }

    /// Closes this node's side of every connection (its threads close the descriptors).
    func dropConnections() {
        state.withLock { state in
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops listening and closes every connection; returns once all its threads are gone. Idempotent.
    func stop() {
        state.withLock { state in
            state.stopping = true
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        threads.wait()
    }
}

/// A blocking client socket on 127.0.0.1 whose reads give up after a timeout, so a test never hangs.
private final class TestClient: Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestClientError.failed("socket", errno) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            closeDescriptor(descriptor)
            throw TestClientError.failed("connect", code)
        }
        setReceiveTimeout(10)
    }

    func send(_ bytes: [UInt8]) { _ = sendAll(descriptor, bytes) }

    /// Reads until `count` bytes came, or the peer closed, or 10 s passed without data.
    func receive(_ count: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < count {
            let got = recv(descriptor, &buffer, min(buffer.count, count - received.count), 0)
            guard got > 0 else { break }
            received += buffer[0..<got]
        }
        return received
    }

    /// Whether the connection ends (EOF or reset) within `seconds`; data read meanwhile is dropped.
    func seesClose(within seconds: Double) -> Bool {
        setReceiveTimeout(seconds)
        defer { setReceiveTimeout(10) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got > 0 { continue }
            return got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    func close() { closeDescriptor(descriptor) }

    /// Sends a FIN: no more bytes from this side, reading goes on.
    func shutdownSending() { _ = shutdown(descriptor, Int32(SHUT_WR)) }

    private func setReceiveTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}

private enum TestClientError: Error {
    case failed(String, Int32)
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    return address
}

/// Writes all of `bytes`; false when the peer is gone (no SIGPIPE: MSG_NOSIGNAL).
private func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let sent = bytes.withUnsafeBytes {
            send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        if sent < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += sent
    }
    return true
}

/// `close`, reachable from types that have a `close()` of their own.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

private typealias Accept4 =
    @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
private let accept4Function = dlsym(nil, "accept4").map { unsafeBitCast($0, to: Accept4.self) }

/// `accept4(…, SOCK_CLOEXEC)` (hidden from Swift's Glibc module): child processes other tests spawn meanwhile
/// must not inherit an echo node's connections.
private func acceptCloseOnExec(_ listener: Int32) -> Int32 {
    accept4Function.map { $0(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue)) } ?? -1
}
