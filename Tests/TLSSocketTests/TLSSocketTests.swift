import CTLS
import Foundation
import RingerTestSupport
import SocketSupport
import TLSSocket
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The socket layer's plaintext pumps over a socket pair, its TLS read-ahead, the connector's outcomes, and the
/// loop-thread check. (TLS over it is exercised end to end by the HTTP/2 client and server tests.)
struct TLSSocketTests {
    /// A connected pair of non-blocking stream sockets, closed on exec: the exit test below spawns a process, which
    /// would otherwise hold a pair's end open and keep its peer from seeing it closed.
    private static func socketPair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
        else {
            throw PosixError("socketpair")
        }
        Posix.configure(descriptors[0])
        Posix.configure(descriptors[1])
        return (descriptors[0], descriptors[1])
    }

    /// What one read pump hands over, as text; an issue unless the pump ends drained.
    private static func drainedText(_ reader: TLSSocket) -> String {
        var received: [UInt8] = []
        let read = reader.readAvailable { bytes in
            received.append(contentsOf: bytes)
            return true
        }
        if case .drained = read {} else { Issue.record("expected the reader to drain, got \(read)") }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func theWritePumpDrainsWhatTheProducerQueuesAndTheReadPumpHandsItOver() throws {
        let (left, right) = try Self.socketPair()
        let writer = try TLSSocket(descriptor: left, ssl: nil, peer: "left")
        let reader = try TLSSocket(descriptor: right, ssl: nil, peer: "right")
        #expect(!writer.isSecure)
        guard case .done = writer.advanceHandshake() else {
            Issue.record("a plaintext socket has no handshake to wait for")
            return
        }
        var chunks = [Array("hello ".utf8), Array("world".utf8)]
        let flushed = writer.flush { buffer in
            if !chunks.isEmpty { buffer.append(contentsOf: chunks.removeFirst()) }
            return true
        }
        guard case .done = flushed else {
            Issue.record("expected everything written, got \(flushed)")
            return
        }
        #expect(!writer.hasUnsentBytes)
        #expect(Self.drainedText(reader) == "hello world")
    }

    @Test func aShortReadEndsThePumpAndWhatArrivesLaterWaitsForTheNextWakeUp() throws {
        let (left, right) = try Self.socketPair()
        let writer = try TLSSocket(descriptor: left, ssl: nil, peer: "left")
        let reader = try TLSSocket(descriptor: right, ssl: nil, peer: "right", readBufferBytes: 4096)
        func write(_ bytes: [UInt8]) {
            var pending = true
            _ = writer.flush { buffer in
                if pending { buffer.append(contentsOf: bytes) }
                pending = false
                return true
            }
        }
        // More than the buffer: full reads go on until the short one that ends the pump.
        write([UInt8](repeating: 7, count: 10_000))
        var chunks: [Int] = []
        let whole = reader.readAvailable { bytes in
            chunks.append(bytes.count)
            return true
        }
        guard case .drained = whole else {
            Issue.record("expected the reader to drain")
            return
        }
        #expect(chunks == [4096, 4096, 1808])
        // Bytes that arrive after the short read are not asked for in the same pump (no read only to hear EAGAIN);
        // `poll` reports them.
        write(Array("first".utf8))
        var received: [String] = []
        let first = reader.readAvailable { bytes in
            received.append(String(decoding: bytes, as: UTF8.self))
            if received.count == 1 { write(Array("later".utf8)) }
            return true
        }
        guard case .drained = first else {
            Issue.record("expected the reader to drain")
            return
        }
        #expect(received == ["first"])
        _ = reader.readAvailable { bytes in
            received.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
        #expect(received == ["first", "later"])
    }

    @Test func theHandshakesLastReadTakesWhatThePeerSentRightAfterItAndAReadHandsItOver() async throws {
        let certificates = try await TestCertificates.make()
        let serverContext = try #require(SSL_CTX_new(TLS_server_method()))
        defer { SSL_CTX_free(serverContext) }
        #expect(SSL_CTX_use_certificate_chain_file(serverContext, certificates.serverCertificate) == 1)
        #expect(SSL_CTX_use_PrivateKey_file(serverContext, certificates.serverKey, SSL_FILETYPE_PEM) == 1)
        let clientContext = try #require(SSL_CTX_new(TLS_client_method()))
        defer { SSL_CTX_free(clientContext) }
        // TLS 1.2: the server's Finished ends the handshake, so what the server sends next can arrive with it.
        #expect(SSL_CTX_ctrl(clientContext, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1)
        let (left, right) = try Self.socketPair()
        let serverSSL = try #require(SSL_new(serverContext))
        SSL_set_accept_state(serverSSL)
        let clientSSL = try #require(SSL_new(clientContext))
        SSL_set_connect_state(clientSSL)
        let server = try TLSSocket(descriptor: left, ssl: serverSSL, peer: "the client")
        let client = try TLSSocket(descriptor: right, ssl: clientSSL, peer: "the server")
        // In lockstep, the server finishes first: it has the client's Finished before the client has its own.
        var serverDone = false
        for _ in 0..<20 where !serverDone {
            if case .failed(let error) = client.advanceHandshake() { throw error }
            switch server.advanceHandshake() {
            case .done: serverDone = true
            case .pending: continue
            case .failed(let error): throw error
            }
        }
        #expect(serverDone)
        // The server speaks at once, as an HTTP/2 server sends its SETTINGS.
        var queued = false
        _ = server.flush { buffer in
            if !queued { buffer.append(contentsOf: Array("SETTINGS".utf8)) }
            queued = true
            return true
        }
        guard case .done = client.advanceHandshake() else {
            Issue.record("the client's handshake did not finish")
            return
        }
        // One read took the server's Finished and what followed it: the socket has nothing left to report, so a
        // caller that waited for `poll` now would wait for the server's next segment.
        var descriptor = pollfd(fd: right, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 0) == 0)
        #expect(Self.drainedText(client) == "SETTINGS")
    }

    @Test func aReadPumpReportsThePeerClosingAndAConsumerThatRefusesStopsIt() throws {
        let (left, right) = try Self.socketPair()
        let writer = try TLSSocket(descriptor: left, ssl: nil, peer: "left")
        let reader = try TLSSocket(descriptor: right, ssl: nil, peer: "the writer")
        var queued = false
        _ = writer.flush { buffer in
            if !queued { buffer.append(contentsOf: [1, 2, 3]) }
            queued = true
            return true
        }
        guard case .rejected = reader.readAvailable({ _ in false }) else {
            Issue.record("a consumer that refuses bytes stops the pump")
            return
        }
        writer.close()
        #expect(writer.descriptor == -1)
        guard case .closed(let error) = reader.readAvailable({ _ in true }) else {
            Issue.record("a closed peer ends the pump")
            return
        }
        #expect(error.function == "recv")
        #expect(error.message.contains("closed by the writer"))
    }

    @Test func aProducerFailureIsReportedAsSuch() throws {
        let (left, right) = try Self.socketPair()
        let writer = try TLSSocket(descriptor: left, ssl: nil, peer: "left")
        defer { Posix.closeDescriptor(right) }
        guard case .producerFailed = writer.flush({ _ in false }) else {
            Issue.record("expected producerFailed")
            return
        }
    }

    @Test func aFullSocketBlocksTheWritePumpAndAsksForWritability() throws {
        let (left, right) = try Self.socketPair()
        let writer = try TLSSocket(descriptor: left, ssl: nil, peer: "left")
        defer { Posix.closeDescriptor(right) }
        let chunk = [UInt8](repeating: 7, count: TLSSocket.writeChunkBytes)
        let end = writer.flush { buffer in
            buffer.append(contentsOf: chunk)  // more than any socket buffer takes, never read
            return true
        }
        guard case .blocked = end else {
            Issue.record("expected blocked, got \(end)")
            return
        }
        #expect(writer.wantsWritable)
        #expect(writer.hasUnsentBytes)
    }

    @Test func aConnectToAClosedPortFailsNamingThePeer() throws {
        // Bind a port and close it again, so nothing listens there.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(probe, pointer, length)
                return getsockname(probe, pointer, &length)
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        Posix.closeDescriptor(probe)

        var connector = try TCPConnector(host: "127.0.0.1", port: port, peer: "127.0.0.1:\(port)", keepAlive: nil)
        var outcome = TCPConnector.Outcome.retrying
        for _ in 0..<100 {
            var descriptors = [pollfd(fd: connector.descriptor, events: Int16(POLLOUT), revents: 0)]
            _ = poll(&descriptors, 1, 100)
            outcome = connector.finish()
            if case .retrying = outcome { continue }
            break
        }
        guard case .failed(let error) = outcome else {
            Issue.record("expected the connect to fail, got \(outcome)")
            return
        }
        #expect(error.function == "connect")
        #expect(error.code == Int(ECONNREFUSED))
        #expect(error.message.contains("127.0.0.1:\(port)"))
        #expect(connector.descriptor == -1)
    }

    @Test func aNameThatDoesNotResolveFailsAtOnce() {
        #expect(throws: TLSSocketError.self) {
            _ = try TCPConnector(
                host: "no-such-host.invalid", port: 443, peer: "no-such-host.invalid:443", keepAlive: nil)
        }
    }

    @Test func theLoopThreadIsTheOneThatMadeTheCheck() async {
        let loop = LoopThread()
        #expect(loop.isCurrent)
        let elsewhere = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: loop.isCurrent) }.start()
        }
        #expect(!elsewhere)
    }

    @Test func aSocketTouchedOffItsLoopThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            var descriptors: [Int32] = [-1, -1]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors)
            nonisolated(unsafe) let socket = try TLSSocket(descriptor: descriptors[0], ssl: nil, peer: "peer")
            let thread = Thread { _ = socket.readAvailable { _ in true } }
            thread.start()
            sleep(10)  // the other thread traps long before
        }
    }
}
