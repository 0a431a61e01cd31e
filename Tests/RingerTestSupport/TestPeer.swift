import Foundation
import HTTP2Client

/// The independent HTTP/2 server the tests talk to: Tests/Peers/h2_peer.py (hypercorn) as a child
/// process on an ephemeral loopback port. See that script for the route options.
public final class TestPeer {
    /// How the peer answers one path.
    public struct Route: Encodable, Sendable {
        public var status: Int?
        public var body: String?
        public var headers: [String: String]?
        public var delayMs: Int?
        public var never: Bool?
        public var barrier: Int?
        public var bodyBytes: Int?

        enum CodingKeys: String, CodingKey {
            case status, body, headers, never, barrier
            case delayMs = "delay_ms"
            case bodyBytes = "body_bytes"
        }

        /// Creates a route; every field is optional (see Tests/Peers/h2_peer.py).
        public init(status: Int? = nil, body: String? = nil, headers: [String: String]? = nil, delayMs: Int? = nil,
                    never: Bool? = nil, barrier: Int? = nil, bodyBytes: Int? = nil) {
            self.status = status
            self.body = body
            self.headers = headers
            self.delayMs = delayMs
            self.never = never
            self.barrier = barrier
            self.bodyBytes = bodyBytes
        }

        /// Never answers; the request hangs until the client gives up.
        public static let never = Route(never: true)
    }

    /// One request as the peer saw it.
    public struct Record: Decodable {
        public let method: String
        public let path: String
        public let query: String
        public let headers: [[String]]
        public let body: String
        public let httpVersion: String
        public let connection: String
        /// Requests to the same path being handled when this one arrived, itself included.
        public let active: Int
        public let disconnected: Bool

        enum CodingKeys: String, CodingKey {
            case method, path, query, headers, body, connection, active, disconnected
            case httpVersion = "http_version"
        }

        /// Values of every header with this (lowercase) name, in arrival order.
        public func values(of name: String) -> [String] {
            headers.filter { $0.first == name }.map { $0.count > 1 ? $0[1] : "" }
        }

        /// The decoded body bytes.
        public var bodyBytes: [UInt8] {
            Data(base64Encoded: body).map { [UInt8]($0) } ?? []
        }
    }

    public let port: Int
    private let scheme: String
    private let process: Process
    private let input: Pipe
    private let exited: ExitSignal
    /// A client of its own for the control endpoints, so it never shares connections with the client under test.
    private let control: HTTP2Client

    private init(port: Int, scheme: String, process: Process, input: Pipe, exited: ExitSignal, control: HTTP2Client) {
        self.port = port
        self.scheme = scheme
        self.process = process
        self.input = input
        self.exited = exited
        self.control = control
    }

    /// Starts a peer, runs `body`, and always stops the peer and deletes its certificates.
    /// - Parameters:
    ///   - routes: Behaviour per path; other paths echo the request.
    ///   - requireClientCertificate: Demand a client certificate signed by the test CA (mutual TLS).
    ///   - plain: Serve cleartext HTTP (HTTP/1.1 and h2c prior knowledge) instead of TLS.
    ///   - body: The test, given the running peer and its certificates.
    public static func with<T>(
        routes: [String: Route] = [:],
        requireClientCertificate: Bool = false,
        plain: Bool = false,
        _ body: (TestPeer, TestCertificates) async throws -> T
    ) async throws -> T {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let peer = try await start(certificates: certificates, routes: routes,
                                   requireClientCertificate: requireClientCertificate, plain: plain)
        do {
            let result = try await body(peer, certificates)
            await peer.stop()
            return result
        } catch {
            await peer.stop()
            throw error
        }
    }

    /// The absolute URL of `path` on this peer.
    public func url(_ path: String) -> String {
        "\(scheme)://localhost:\(port)\(path)"
    }

    /// Waits (without sleeping) until the peer has received `count` requests to `path`, or until
    /// `count` of them were abandoned by the client when `disconnected` is true.
    public func waitFor(path: String, count: Int = 1, disconnected: Bool = false) async throws {
        let query = "path=\(path)&count=\(count)&disconnected=\(disconnected ? 1 : 0)"
        let response = try await control.send(HTTP2Request(url: url("/_peer/wait?\(query)"), method: "GET", timeout: 60))
        guard response.status == 200 else {
            throw ChildProcess.Failure(description: "peer wait answered \(response.status)")
        }
    }

    /// Everything the peer recorded so far, in arrival order.
    public func records() async throws -> [Record] {
        let response = try await control.send(HTTP2Request(url: url("/_peer/requests"), method: "GET", timeout: 60))
        return try JSONDecoder().decode([Record].self, from: Data(response.body))
    }

    private static func start(
        certificates: TestCertificates, routes: [String: Route], requireClientCertificate: Bool, plain: Bool
    ) async throws -> TestPeer {
        let script = PeerScripts.path("h2_peer.py")
        var arguments = ["python3", script, "--cert", certificates.serverCertificate, "--key", certificates.serverKey,
                         "--routes", String(decoding: try JSONEncoder().encode(routes), as: UTF8.self)]
        if requireClientCertificate {
            arguments += ["--client-ca", certificates.caFile]
        }
        if plain {
            arguments.append("--plain")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input  // the peer exits when this closes, even if the tests crash
        process.standardOutput = output
        let exited = ExitSignal()
        process.terminationHandler = { _ in exited.fire() }
        let portLine = LineReader()
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread {  // blocking reads stay off Swift's cooperative threads
            while !portLine.isDone {
                portLine.feed(reader.availableData)
            }
        }
        // Watchdog, not synchronisation: a peer that never reports a port is killed, which ends the wait.
        let watchdog = Task { [exited] in
            try await Task.sleep(for: .seconds(60))
            if !exited.hasFired { kill(process.processIdentifier, SIGKILL) }
        }
        defer { watchdog.cancel() }
        let line = await portLine.firstLine()
        guard let line, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            await exited.wait()
            throw ChildProcess.Failure(description: "h2_peer.py did not report its port (got \(line ?? "EOF"))")
        }
        var controlConfiguration = HTTP2Client.Configuration(caFile: certificates.caFile, http2PriorKnowledge: true)
        if requireClientCertificate {
            controlConfiguration.clientCertificate = .init(certificateFile: certificates.clientCertificate,
                                                           keyFile: certificates.clientKey)
        }
        let control = try HTTP2Client(configuration: controlConfiguration)
        return TestPeer(port: port, scheme: plain ? "http" : "https", process: process, input: input,
                        exited: exited, control: control)
    }

    /// Closes the peer's stdin (its signal to exit) and waits for it; kills it if it lingers.
    public func stop() async {
        control.shutdown()
        try? input.fileHandleForWriting.close()
        let pid = process.processIdentifier
        let watchdog = Task { [exited] in
            try await Task.sleep(for: .seconds(20))
            if !exited.hasFired { kill(pid, SIGKILL) }
        }
        await exited.wait()
        watchdog.cancel()
    }
}

/// A one-time event that tasks can await: the peer process exited.
final class ExitSignal: @unchecked Sendable {
    // `fired` and `waiters` are only touched while holding `lock`.
    private let lock = NSLock()
    private var fired = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public var hasFired: Bool {
        lock.withLock { fired }
    }

    public func fire() {
        let toResume: [CheckedContinuation<Void, Never>] = lock.withLock {
            fired = true
            defer { waiters.removeAll() }
            return waiters
        }
        toResume.forEach { $0.resume() }
    }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let ready: Bool = lock.withLock {
                if fired { return true }
                waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Collects a child's stdout until its first line (or EOF) and hands it to one waiter.
final class LineReader: @unchecked Sendable {
    // `buffer`, `result`, `done` and `waiter` are only touched while holding `lock`.
    private let lock = NSLock()
    private var buffer = Data()
    private var done = false
    private var result: String?
    private var waiter: CheckedContinuation<String?, Never>?

    /// True once the first line or EOF has been seen.
    public var isDone: Bool {
        lock.withLock { done }
    }

    /// Called with each chunk read; an empty chunk means EOF.
    public func feed(_ data: Data) {
        let resume: (CheckedContinuation<String?, Never>, String?)? = lock.withLock {
            guard !done else { return nil }
            if data.isEmpty {
                done = true
            } else {
                buffer.append(data)
                guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                done = true
                result = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            }
            guard let waiter else { return nil }
            self.waiter = nil
            return (waiter, result)
        }
        if let (waiter, line) = resume { waiter.resume(returning: line) }
    }

    /// The first line without its newline, or nil if the stream ended first.
    public func firstLine() async -> String? {
        await withCheckedContinuation { continuation in
            let ready: (Bool, String?) = lock.withLock {
                if done { return (true, result) }
                waiter = continuation
                return (false, nil)
            }
            if ready.0 { continuation.resume(returning: ready.1) }
        }
    }
}
