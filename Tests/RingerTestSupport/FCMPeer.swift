public import FCM
public import Foundation
public import HTTP2Client

/// The independent FCM peer, Tests/Peers/fcm_peer.py (hypercorn + h2, PyJWT, cryptography), on an
/// ephemeral loopback port: its token endpoint verifies Ringer's grants, its `messages:send` checks and
/// records Ringer's requests and answers as the registration token's prefix asks (see the script).
/// Use through ``with(projects:plain:_:)``, which stops the peer and deletes its files.
public final class FCMPeer: Sendable {
    /// One request as the peer saw it.
    public struct Record: Decodable, Sendable {
        public struct Claims: Decodable, Sendable {
            public var iss: String?
            public var scope: String?
            public var aud: String?
            public var iat: Int64?
            public var exp: Int64?
        }

        public var kind: String
        public var path: String
        public var method: String
        public var httpVersion: String
        public var headers: [[String]]
        public var body: String
        public var problems: [String]
        public var status: Int?
        public var jwtHeader: [String: String]?
        public var claims: Claims?

        public enum CodingKeys: String, CodingKey {
            case kind, path, method, headers, body, problems, status, claims
            case httpVersion = "http_version"
            case jwtHeader = "jwt_header"
        }

        /// The first value of a (lowercase) header.
        public func header(_ name: String) -> String? {
            headers.first { $0.first == name }.flatMap { $0.count > 1 ? $0[1] : nil }
        }

        /// The body as a JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }
    }

    public let port: Int
    public let directory: URL
    public let caFile: String
    public let baseURL: String
    public let projects: [String]
    private let process: PeerProcess
    private let control: HTTP2Client

    private init(
        port: Int, directory: URL, caFile: String, baseURL: String, projects: [String], process: PeerProcess,
        control: HTTP2Client
    ) {
        self.port = port
        self.directory = directory
        self.caFile = caFile
        self.baseURL = baseURL
        self.projects = projects
        self.process = process
        self.control = control
    }

    /// Starts a peer for `projects` (TLS with a throw-away CA, or h2c with `plain`), runs `body`, then stops it.
    public static func with<T>(
        projects: [String] = ["ringer-test"], plain: Bool = false,
        _ body: (FCMPeer) async throws -> T
    ) async throws -> T {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let directory = certificates.directory.appendingPathComponent("accounts", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [
            "python3", PeerScripts.path("fcm_peer.py"), "--dir", directory.path,
            "--projects", projects.joined(separator: ","),
        ]
        arguments += plain ? ["--plain"] : ["--cert", certificates.serverCertificate, "--key", certificates.serverKey]
        let process = try await PeerProcess.start(arguments, timeout: 60)
        guard process.firstLine.hasPrefix("PORT "), let port = Int(process.firstLine.dropFirst(5)) else {
            await process.stop(grace: 0)
            throw TestSupportError.setup("fcm_peer.py did not report its port (got \(process.firstLine))")
        }
        let base = plain ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)"
        let peer: FCMPeer
        do {
            let control = try HTTP2Client(configuration: .init(caFile: certificates.caFile, http2PriorKnowledge: true))
            peer = FCMPeer(
                port: port, directory: directory, caFile: certificates.caFile, baseURL: base,
                projects: projects, process: process, control: control)
        } catch {
            await process.stop()
            throw error
        }
        do {
            let result = try await body(peer)
            await peer.stop()
            return result
        } catch {
            await peer.stop()
            throw error
        }
    }

    /// The path of a service-account file the peer wrote: `<project>.json`, `<project>-wrong-key.json`,
    /// `stranger.json`.
    public func accountPath(_ name: String) -> String { directory.appendingPathComponent(name + ".json").path }

    /// The honoured account of `project` (the first project by default), read from its file.
    public func account(_ project: String? = nil) throws -> FCMServiceAccount {
        try FCMServiceAccount(contentsOfFile: accountPath(project ?? projects[0]))
    }

    /// A client for the peer: every project's honoured account unless `accounts` says otherwise.
    public func client(
        accounts: [FCMServiceAccount]? = nil,
        _ configure: (inout FCMClient.Configuration) -> Void = { _ in }
    ) throws -> FCMClient {
        var configuration = FCMClient.Configuration(
            serviceAccounts: try accounts ?? projects.map { try account($0) },
            baseURL: baseURL, caFile: caFile, requestTimeout: 20, grantTimeout: 20)
        configure(&configuration)
        return try FCMClient(configuration: configuration)
    }

    /// An HTTP/2 client that trusts the peer, for an ``FCMAccessTokenSource`` under test.
    public func grantClient() throws -> HTTP2Client {
        try HTTP2Client(configuration: .init(caFile: caFile, http2PriorKnowledge: true))
    }

    /// Everything recorded so far, in arrival order.
    public func records() async throws -> [Record] {
        let response = try await control.send(
            HTTP2Request(url: baseURL + "/_peer/requests", method: "GET", timeout: 60))
        return try JSONDecoder().decode([Record].self, from: Data(response.body))
    }

    /// The grants recorded so far.
    public func grants() async throws -> [Record] { try await records().filter { $0.kind == "grant" } }

    /// The `messages:send` requests recorded so far.
    public func sends() async throws -> [Record] { try await records().filter { $0.kind == "send" } }

    /// Merges settings into the peer's (`token_delay_ms`, `token_status`, `token_body`, `expires_in`,
    /// `send_delay_ms`, `revoke`).
    public func configure(_ settings: [String: any Sendable]) async throws {
        let body = try JSONSerialization.data(withJSONObject: settings)
        let response = try await control.send(
            HTTP2Request(
                url: baseURL + "/_peer/configure", method: "POST",
                body: [UInt8](body), timeout: 60))
        guard response.status == 200 else { throw TestSupportError.setup("configure answered \(response.status)") }
    }

    private func stop() async {
        control.shutdown()
        await process.stop()
    }
}
