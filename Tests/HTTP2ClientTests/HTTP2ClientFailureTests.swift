import Foundation
import HTTP2Client
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Deadlines, cancellation, shutdown and transport failures. Waits are on peer events, never sleeps;
/// time bounds are generous so a loaded 2-core machine passes.
@Suite(.serialized) struct HTTP2ClientFailureTests {
    private static func client(_ certificates: TestCertificates) throws -> HTTP2Client {
        try HTTP2Client(configuration: .init(caFile: certificates.caFile))
    }

    @Test func neverAnsweredRequestTimesOutWhileOthersSucceed() async throws {
        try await TestPeer.with(routes: ["/never": .never, "/slow": .init(body: "slow", delayMs: 300)]) {
            peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            // A new connection carries one stream until its first answer (the client has then read the
            // server's SETTINGS), so warm it up first; the never-answered stream is then one of many.
            #expect(try await client.send(HTTP2Request(url: peer.url("/echo"), timeout: 60)).status == 200)
            let deadline = 2.0
            let started = ContinuousClock.now
            let never = peer.url("/never")
            let hanging = Task { try await client.send(HTTP2Request(url: never, timeout: deadline)) }
            try await peer.waitFor(path: "/never")

            // Same client, same connection, while the stream above is still open.
            for index in 0..<5 {
                let response = try await client.send(
                    HTTP2Request(
                        url: peer.url(index.isMultiple(of: 2) ? "/echo" : "/slow"),
                        timeout: 60))
                #expect(response.status == 200)
            }

            await #expect(throws: HTTP2ClientError.timedOut) { _ = try await hanging.value }
            let waited = ContinuousClock.now - started
            #expect(waited >= .seconds(deadline * 0.9))
            #expect(waited < .seconds(deadline + 20))

            let after = try await client.send(HTTP2Request(url: peer.url("/after"), timeout: 60))
            #expect(after.status == 200)
            #expect(after.connectionReused)  // a timed-out stream does not cost the connection
            // The stream was reset, not left open. libcurl 7.88 queues the RST_STREAM and writes it with the
            // connection's next frames, hence the wait after the next request.
            try await peer.waitFor(path: "/never", disconnected: true)
        }
    }

    @Test func cancellingTheTaskResetsTheStream() async throws {
        try await TestPeer.with(routes: ["/never": .never]) { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            let never = peer.url("/never")
            let task = Task { try await client.send(HTTP2Request(url: never, timeout: 120)) }
            try await peer.waitFor(path: "/never")
            let started = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            #expect(ContinuousClock.now - started < .seconds(20))

            let after = try await client.send(HTTP2Request(url: peer.url("/after"), timeout: 60))
            #expect(after.status == 200)
            #expect(after.connectionReused)
            try await peer.waitFor(path: "/never", disconnected: true)  // RST_STREAM sent (with the next frames)
        }
    }

    @Test func cancellationRacingTheHandOffAlwaysThrows() async throws {
        try await TestPeer.with(routes: ["/never": .never]) { peer, certificates in
            let client = try Self.client(certificates)
            defer { client.shutdown() }
            // Cancel at varying points: before send starts, during hand-off, after the stream opened.
            let never = peer.url("/never")
            let tasks = (0..<40).map { _ in
                Task { try await client.send(HTTP2Request(url: never, timeout: 120)) }
            }
            for (index, task) in tasks.enumerated() {
                if index.isMultiple(of: 3) { await Task.yield() }
                task.cancel()
            }
            for task in tasks {
                await #expect(throws: CancellationError.self) { _ = try await task.value }
            }
            let after = try await client.send(HTTP2Request(url: peer.url("/after"), timeout: 60))
            #expect(after.status == 200)
        }
    }

    @Test func shutdownFailsInFlightRequests() async throws {
        try await TestPeer.with(routes: ["/never": .never]) { peer, certificates in
            let client = try Self.client(certificates)
            let never = peer.url("/never")
            let tasks = (0..<3).map { _ in
                Task { try await client.send(HTTP2Request(url: never, timeout: 120)) }
            }
            try await peer.waitFor(path: "/never", count: 3)
            let started = ContinuousClock.now
            client.shutdown()
            for task in tasks {
                await #expect(throws: HTTP2ClientError.shutDown) { _ = try await task.value }
            }
            #expect(ContinuousClock.now - started < .seconds(20))
            await #expect(throws: HTTP2ClientError.shutDown) {
                _ = try await client.send(HTTP2Request(url: peer.url("/late"), timeout: 60))
            }
            client.shutdown()  // idempotent
            try await peer.waitFor(path: "/never", count: 3, disconnected: true)
        }
    }

    @Test func untrustedCertificateIsATransportError() async throws {
        try await TestPeer.with { peer, _ in
            let client = try HTTP2Client()  // system trust store only: the test CA is unknown
            defer { client.shutdown() }
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(HTTP2Request(url: peer.url("/tls"), timeout: 60))
            }
            #expect(error?.isTransport == true)
            #expect(error?.transportFunction == "SSL_do_handshake")
            #expect(error?.transportCode == 20)  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
            #expect(error?.description.contains("certificate verification failed") == true)

            let insecure = try HTTP2Client(configuration: .init(verifyPeer: false))
            defer { insecure.shutdown() }
            #expect(try await insecure.send(HTTP2Request(url: peer.url("/tls"), timeout: 60)).status == 200)
        }
    }

    @Test func refusedConnectionFailsQuickly() async throws {
        let closed = try ClosedPort()
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(closed.port)/", timeout: 60))
        }
        #expect(error?.isTransport == true)
        #expect(error?.transportFunction == "connect")
        #expect(error?.transportCode == Int(ECONNREFUSED))
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test func serverThatAcceptsAndNeverAnswersFailsAtTheConnectTimeoutNotTheDeadline() async throws {
        let hanging = try ClosedPort(listening: true)
        let client = try HTTP2Client(configuration: .init(connectTimeout: 1))
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(hanging.port)/", timeout: 30))
        }
        #expect(error?.transportFunction == "SSL_do_handshake")
        #expect(error?.transportCode == Int(ETIMEDOUT))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func requestThatNeverLeftTheQueueReportsTheConnectionFailureNotATimeout() async throws {
        let dropping = try DroppingListener()  // every TLS handshake ends at once: a certificate refused, say
        let client = try HTTP2Client(configuration: .init())
        defer { client.shutdown() }
        let url = "https://127.0.0.1:\(dropping.port)/"
        // Failures in a row push the reconnect backoff to 0.8 s or more...
        for _ in 0..<6 {
            await #expect(throws: HTTP2ClientError.self) { try await client.send(HTTP2Request(url: url, timeout: 10)) }
        }
        // ...so a push with a 0.2 s deadline waits for it and expires unsent: its error says why it was not sent.
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: url, timeout: 0.2))
        }
        #expect(error != .timedOut)
        #expect(error?.transportFunction == "SSL_do_handshake")
        #expect(error?.description.contains("not sent before the deadline") == true)
        #expect(error?.description.contains("TLS handshake") == true, "\(String(describing: error))")
        await dropping.stop()
    }
}
