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
        public init(
            status: Int? = nil, body: String? = nil, headers: [String: String]? = nil, delayMs: Int? = nil,
            never: Bool? = nil, barrier: Int? = nil, bodyBytes: Int? = nil
        ) {
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

    /// The peer's loopback port.
    public let port: Int
    private let scheme: String
    private let process: PeerProcess
    /// A client of its own for the control endpoints, so it never shares connections with the client under test.
    private let control: HTTP2Client

    private init(port: Int, scheme: String, process: PeerProcess, control: HTTP2Client) {
        self.port = port
        self.scheme = scheme
        self.process = process
        self.control = control
    }

    /// Starts a peer, runs `body`, and always stops the peer and deletes its certificates.
    /// - Parameters:
    ///   - routes: Behaviour per path; other paths echo the request.
    ///   - requireClientCertificate: Demand a client certificate signed by the test CA (mutual TLS).
    ///   - plain: Serve cleartext HTTP (HTTP/1.1 and h2c prior knowledge) instead of TLS.
    ///   - body: The test, given the running peer and its certificates.
    /// - Returns: What `body` returns.
    /// - Throws: ``TestSupportError`` when the certificates or the peer cannot be set up; what `body` throws.
    public static func with<T>(
        routes: [String: Route] = [:],
        requireClientCertificate: Bool = false,
        plain: Bool = false,
        _ body: (TestPeer, TestCertificates) async throws -> T
    ) async throws -> T {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let peer = try await start(
            certificates: certificates, routes: routes,
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
    /// - Parameter path: Path and query, starting with `/`.
    /// - Returns: `https://localhost:<port><path>` (`http` for a plain peer).
    public func url(_ path: String) -> String {
        "\(scheme)://localhost:\(port)\(path)"
    }

    /// Waits (without sleeping) until the peer has received `count` requests to `path`, or until
    /// `count` of them were abandoned by the client when `disconnected` is true.
    /// - Throws: ``TestSupportError`` when the peer answers other than 200; `HTTP2ClientError` from the control client.
    public func waitFor(path: String, count: Int = 1, disconnected: Bool = false) async throws {
        let query = "path=\(path)&count=\(count)&disconnected=\(disconnected ? 1 : 0)"
        let response = try await control.send(
            HTTP2Request(url: url("/_peer/wait?\(query)"), method: "GET", timeout: 60))
        guard response.status == 200 else {
            throw TestSupportError.setup("peer wait answered \(response.status)")
        }
    }

    /// Everything the peer recorded so far, in arrival order.
    /// - Returns: One record per request.
    /// - Throws: `HTTP2ClientError` or a decoding error.
    public func records() async throws -> [Record] {
        let response = try await control.send(HTTP2Request(url: url("/_peer/requests"), method: "GET", timeout: 60))
        return try JSONDecoder().decode([Record].self, from: Data(response.body))
    }

    private static func start(
        certificates: TestCertificates, routes: [String: Route], requireClientCertificate: Bool, plain: Bool
    ) async throws -> TestPeer {
        let script = PeerScripts.path("h2_peer.py")
        var arguments = [
            "python3", script, "--cert", certificates.serverCertificate, "--key", certificates.serverKey,
            "--routes", String(decoding: try JSONEncoder().encode(routes), as: UTF8.self),
        ]
        if requireClientCertificate {
            arguments += ["--client-ca", certificates.caFile]
        }
        if plain {
            arguments.append("--plain")
        }
        let process = try await PeerProcess.start(arguments, timeout: 60)
        let line = process.firstLine
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            await process.stop(grace: 0)
            throw TestSupportError.setup("h2_peer.py did not report its port (got \(line))")
        }
        var controlConfiguration = HTTP2Client.Configuration(caFile: certificates.caFile, http2PriorKnowledge: true)
        if requireClientCertificate {
            controlConfiguration.clientCertificate = .init(
                certificateFile: certificates.clientCertificate,
                keyFile: certificates.clientKey)
        }
        do {
            let control = try HTTP2Client(configuration: controlConfiguration)
            return TestPeer(port: port, scheme: plain ? "http" : "https", process: process, control: control)
        } catch {
            await process.stop()
            throw error
        }
    }

    /// Closes the peer's stdin (its signal to exit) and waits for it; terminates it if it lingers.
    public func stop() async {
        control.shutdown()
        await process.stop()
    }
}
