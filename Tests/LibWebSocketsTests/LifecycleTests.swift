import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// Start, shutdown and configuration errors.
@Suite struct LifecycleTests {
    @Test func shutdownWithOpenConnectionsIsPromptAndFreesThePort() async throws {
        let delegate = RecordingDelegate()
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            try? await Task.sleep(for: .seconds(20))
            return .empty(status: 204)
        } webSocketHandler: { _, _ in
            .accept(delegate)
        }
        let port = try server.start()
        #expect(server.port == port)

        let closes = LockedValue(0)
        let client = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/ws", onText: { _ in },
            onClose: { _, _ in closes.withLock { $0 += 1 } })
        async let hanging = ChildProcess.run(["curl", "-sS", "-m", "15", "http://127.0.0.1:\(port)/slow"])
        try await Task.sleep(for: .milliseconds(300))

        let started = Date()
        server.shutdown()
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(server.port == nil)
        #expect(delegate.closeCount.snapshot == 1)
        #expect(await eventually { closes.snapshot == 1 })
        #expect(!client.isOpen)
        #expect(try await hanging.status != 0)
        server.shutdown()  // idempotent

        let again = WebServer(configuration: .init(port: port)) { _ in .text("again") }
        #expect(try again.start() == port)
        let result = try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/"])
        #expect(result.standardOutput == "again")
        again.shutdown()
    }

    @Test func startTwiceAndPortInUseAndBadSettingsThrow() throws {
        let first = WebServer(configuration: .init()) { _ in .empty(status: 204) }
        let port = try first.start()
        defer { first.shutdown() }
        #expect(throws: LibWebSocketsError.alreadyStarted) { try first.start() }

        let clash = WebServer(configuration: .init(port: port)) { _ in .empty(status: 204) }
        #expect(throws: LibWebSocketsError.contextCreationFailed) { try clash.start() }

        let invalid = WebServer(configuration: .init(port: 70_000)) { _ in .empty(status: 204) }
        #expect(throws: LibWebSocketsError.invalidConfiguration) { try invalid.start() }

        let missingFiles = WebServer(
            configuration: .init(
                tls: .init(
                    certificatePath: "/nonexistent/cert.pem",
                    privateKeyPath: "/nonexistent/key.pem"))
        ) { _ in
            .empty(status: 204)
        }
        #expect(throws: LibWebSocketsError.contextCreationFailed) { try missingFiles.start() }
    }

    @Test func shutdownBeforeStartIsHarmless() {
        let server = WebServer(configuration: .init()) { _ in .empty(status: 204) }
        server.shutdown()
        #expect(server.port == nil)
        #expect(throws: LibWebSocketsError.alreadyStarted) { try server.start() }
    }
}

/// A server closes only descriptors it owns, even where lws 4.1.6 on a foreign loop closes one twice. Each test
/// runs a ``DescriptorWatch`` (a thread checking that its own descriptors stay open), out of the parallel run.
@Suite(.serialized) struct DescriptorOwnershipTests {
    /// lws half-destroys a context whose TLS files it cannot use; finishing that destruction closed descriptors a
    /// second time, which could be another thread's by then (seen as lws' `insert_wsi` assertion, and later as a
    /// SIGABRT, aborting parallel test runs). Such files are now refused before lws.
    @Test func aStartThatFailsOnItsTLSFilesClosesNoDescriptorOfAnotherThreadAndSaysWhichFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lws-bad-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        try Data("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n".utf8).write(
            to: certificate)
        try Data("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".utf8).write(to: key)
        let watch = DescriptorWatch()
        for _ in 0..<100 {
            let server = WebServer(
                configuration: .init(
                    tls: .init(
                        certificatePath: certificate.path,
                        privateKeyPath: key.path))
            ) { _ in .empty(status: 204) }
            let error = #expect(throws: LibWebSocketsError.contextCreationFailed) { try server.start() }
            #expect(error?.detail.contains("cannot load the TLS certificate chain \(certificate.path)") == true)
        }
        #expect(watch.stop() == 0, "descriptors of another thread were closed under it")
    }

    /// lws' libuv plugin closes the event pipe twice while a context is destroyed: once in the first
    /// `lws_context_destroy`, again when libuv reports the pipe's handle closed. A parallel CI run saw another
    /// server's `lws_create_context` fail when the second close hit the folder it was reading its plugins from
    /// (docs/decisions/0002-lws-event-pipe-double-close.md).
    @Test func aServerThatShutsDownClosesNoDescriptorOfAnotherThread() throws {
        var closedUnderAnotherThread = 0
        for _ in 0..<300 {
            let server = WebServer(configuration: .init()) { _ in .empty(status: 204) }
            try server.start()
            let watch = DescriptorWatch()
            server.shutdown()
            closedUnderAnotherThread += watch.stop()
        }
        #expect(closedUnderAnotherThread == 0, "descriptors of another thread were closed under it")
    }
}
