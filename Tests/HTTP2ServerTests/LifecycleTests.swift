import Foundation
import HTTP2Server
import RingerHTTP
import RingerTestSupport
import Testing

/// Start, shutdown, timeouts and clients that do not speak HTTP/2 properly.
@Suite(.serialized)
struct LifecycleTests {
    @Test("shutdown() with a never-answering handler in flight returns within a second and frees the port")
    func shutdownWithHandlerInFlight() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        async let held = Peer.run(["hold"], against: server)
        #expect(await server.log.waitFor(path: "/never"))
        let started = ContinuousClock.now
        server.server.shutdown()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "shutdown took \(took)")
        let report = try await held
        #expect(report.closed == true)
        #expect(report.responses?.first?.status == nil)
        #expect(report.goaway == nil || report.goaway?.errorCode == 0)
        server.server.shutdown()  // idempotent

        // The handler's task was cancelled.
        for _ in 0..<100 where server.log.cancellations == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.log.cancellations == 1)

        // Same port, new server.
        let port = server.port
        let again = try await TestServer.start { $0.port = port }
        defer { again.stop() }
        #expect(again.port == port)
        #expect(try await Curl.send("/empty", to: again).status == 200)
    }

    @Test("Clients that are not HTTP/2 over TLS get a clean close; HTTP/2 without ALPN is served")
    func malformedClients() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let badPreface = try await Peer.run(["bad-preface"], against: server)
        #expect(badPreface.closed == true)
        let plain = try await Peer.run(["plain-tcp"], against: server)
        #expect(plain.closed == true)
        // A TLS client that offers no ALPN speaks HTTP/2 with prior knowledge, as aioapns does.
        let noALPN = try await Peer.run(["alpn", "--offer", "none"], against: server)
        #expect(noALPN.handshake == "ok")
        #expect(noALPN.alpn == nil)
        #expect(noALPN.status == 200)
        let http11 = try await Peer.run(["alpn", "--offer", "http/1.1"], against: server)
        #expect(http11.handshake == "failed")
        #expect(http11.error?.lowercased().contains("no application protocol") == true, "\(http11.error ?? "")")
        #expect(server.log.all.map(\.path) == ["/empty"])  // only the prior-knowledge request reached the handler
        #expect(try await Curl.send("/empty", to: server).status == 200)
    }

    @Test("An idle HTTP/2 connection gets GOAWAY and is closed; a silent TCP connection after the handshake timeout")
    func timeouts() async throws {
        let server = try await TestServer.start {
            $0.idleTimeout = 0.5
            $0.handshakeTimeout = 0.5
        }
        defer { server.stop() }
        let idle = try await Peer.run(["alpn", "--offer", "h2"], against: server)
        #expect(idle.alpn == "h2")
        #expect((idle.bytesReceived ?? 0) > 0)  // SETTINGS, then GOAWAY
        #expect(idle.closed == true)
        #expect((idle.elapsed ?? 99) < 3)
        let silent = try await Peer.run(["silent"], against: server)
        #expect(silent.closed == true)
        #expect(silent.bytesReceived == 0)
        #expect((silent.elapsed ?? 0) >= 0.4 && (silent.elapsed ?? 99) < 3)
    }

    @Test("start() reports configuration, TLS and socket problems and misuse as HTTP2ServerError")
    func startErrors() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let handler: @Sendable (HTTPRequest) async -> HTTPResponse = { _ in .empty(status: 200) }
        func configuration(_ change: (inout HTTP2Server.Configuration) -> Void = { _ in }) -> HTTP2Server.Configuration
        {
            var configuration = HTTP2Server.Configuration(
                certificatePath: certificates.serverCertificate,
                privateKeyPath: certificates.serverKey)
            change(&configuration)
            return configuration
        }

        let missing = HTTP2Server(
            configuration: configuration { $0.certificatePath = "/nonexistent/cert.pem" }, handler: handler)
        let missingError = #expect(throws: HTTP2ServerError.self) { try missing.start() }
        #expect(missingError?.isTLSSetup == true)
        #expect(missingError?.function == "SSL_CTX_use_certificate_chain_file")

        let wrongKey = HTTP2Server(
            configuration: configuration {
                $0.privateKeyPath = certificates.caKey
            }, handler: handler)
        let wrongKeyError = #expect(throws: HTTP2ServerError.self) { try wrongKey.start() }
        #expect(wrongKeyError?.isTLSSetup == true)
        #expect(wrongKeyError?.description.contains("BEGIN") == false)

        let badPort = HTTP2Server(configuration: configuration { $0.port = 70_000 }, handler: handler)
        #expect(#expect(throws: HTTP2ServerError.self) { try badPort.start() }?.isInvalidConfiguration == true)

        let first = HTTP2Server(configuration: configuration(), handler: handler)
        let port = try first.start()
        #expect(port > 0)
        #expect(throws: HTTP2ServerError.alreadyStarted) { try first.start() }
        let taken = HTTP2Server(configuration: configuration { $0.port = port }, handler: handler)
        let takenError = #expect(throws: HTTP2ServerError.self) { try taken.start() }
        #expect(takenError?.isSocket == true)
        #expect(takenError?.function == "bind")
        #expect(takenError?.errno == EADDRINUSE)
        first.shutdown()
        #expect(throws: HTTP2ServerError.shutDown) { try first.start() }
    }
}
