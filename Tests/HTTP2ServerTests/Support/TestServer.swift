import Foundation
import HTTP2Server
import RingerHTTP
import RingerSupport
import RingerTestSupport

/// An ``HTTP2Server`` on an ephemeral loopback port with fresh certificates, the ``TestRoutes`` handler and
/// a log of every request it saw. Call ``stop()`` at the end of each test.
final class TestServer: Sendable {
    let certificates: TestCertificates
    let server: HTTP2Server
    let port: Int
    let log: RequestLog
    private let slot: LockedValue<HTTP2Server?>

    /// Makes certificates and starts the server.
    /// - Parameters:
    ///   - configure: Adjusts the configuration (limits, timeouts) before start.
    ///   - handler: Replaces the ``TestRoutes`` handler (requests are still logged).
    static func start(
        _ configure: (inout HTTP2Server.Configuration) -> Void = { _ in },
        handler custom: (@Sendable (HTTPRequest) async -> HTTPResponse)? = nil
    ) async throws -> TestServer {
        let certificates = try await TestCertificates.make()
        var configuration = HTTP2Server.Configuration(
            certificatePath: certificates.serverCertificate,
            privateKeyPath: certificates.serverKey)
        configure(&configuration)
        let log = RequestLog()
        let slot = LockedValue<HTTP2Server?>(nil)
        var handler = TestRoutes.handler(log: log, server: slot)
        if let custom {
            handler = { request in
                log.append(request)
                return await custom(request)
            }
        }
        let server = HTTP2Server(configuration: configuration, handler: handler)
        slot.withLock { $0 = server }
        do {
            let port = try server.start()
            return TestServer(certificates: certificates, server: server, port: port, log: log, slot: slot)
        } catch {
            certificates.remove()
            throw error
        }
    }

    private init(
        certificates: TestCertificates, server: HTTP2Server, port: Int, log: RequestLog,
        slot: LockedValue<HTTP2Server?>
    ) {
        self.certificates = certificates
        self.server = server
        self.port = port
        self.log = log
        self.slot = slot
    }

    /// Shuts the server down and deletes the certificates.
    func stop() {
        server.shutdown()
        slot.withLock { $0 = nil }
        certificates.remove()
    }
}

/// Every request the handler received, in arrival order.
final class RequestLog: Sendable {
    private let requests = LockedValue<[HTTPRequest]>([])
    private let cancelled = LockedValue(0)

    /// Handlers that noticed their task was cancelled.
    var cancellations: Int {
        cancelled.withLock { $0 }
    }

    func noteCancellation() {
        cancelled.withLock { $0 += 1 }
    }

    func append(_ request: HTTPRequest) {
        requests.withLock { $0.append(request) }
    }

    var all: [HTTPRequest] {
        requests.withLock { $0 }
    }

    /// Waits until a request with `path` arrived.
    /// - Returns: false after `timeout` seconds without one.
    func waitFor(path: String, timeout: Double = 10) async -> Bool {
        await eventually(within: timeout) { all.contains { $0.path == path } }
    }
}

/// The test handler's routes.
enum TestRoutes {
    /// - `/3/device/<token>`: 410 with an `apns-id` echo and an APNs-style JSON body.
    /// - `/empty`: 200 without a body. `/echo`: 200 echoing `x-echo`, the `i` query value and the body.
    /// - `/slow`: 200 after one second. `/fast`: 200 at once. `/big`: a 1 MiB body. `/never`: waits for cancellation (an hour) and counts it.
    /// - `/limit`: calls `setMaxConcurrentStreams(1)` on the server, then 200.
    static func handler(
        log: RequestLog, server: LockedValue<HTTP2Server?>
    ) -> @Sendable (HTTPRequest) async -> HTTPResponse {
        { request in
            log.append(request)
            switch request.path {
            case let path where path.hasPrefix("/3/device/"):
                return .json(
                    status: 410, #"{"reason":"Unregistered","timestamp":1700000000000}"#,
                    headers: [("apns-id", request.header("apns-id") ?? "missing")])
            case "/empty":
                return .empty(status: 200)
            case "/echo":
                return HTTPResponse(
                    status: 200, headers: [("x-echo", request.header("x-echo") ?? "")],
                    body: Array("echo:\(request.query["i"] ?? ""):\(request.bodyText)".utf8))
            case "/slow":
                try? await Task.sleep(for: .seconds(1))
                return .text("slow")
            case "/fast":
                return .text("fast")
            case "/big":
                return HTTPResponse(status: 200, body: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
            case "/never":
                try? await Task.sleep(for: .seconds(3600))
                if Task.isCancelled { log.noteCancellation() }
                return .text("too late")
            case "/limit":
                server.withLock { $0 }?.setMaxConcurrentStreams(1)
                return .text("limited")
            default:
                return .text(status: 404, "no route")
            }
        }
    }
}
