import DevCertificates
import Foundation
import HTTP2Client
import JWT
import RingerSupport
import RingerSandbox
import RingerTestSupport
import Testing

/// An FCM sandbox on ephemeral loopback ports (throw-away CA, one trusted service account whose file's
/// `token_uri` points at the sandbox), an HTTP/2 client that trusts it, and an expiry clock the test moves by
/// hand. Use through ``with(configure:_:)``, which cleans up.
final class FCMSandboxFixture: Sendable {
    static let project = "ringer-dev"
    static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    let sandbox: FCMSandbox
    let ports: FCMSandbox.Ports
    let caFile: String
    /// The service-account JSON file (token_uri: the sandbox's HTTP/1.1 port).
    let serviceAccountFile: URL
    let clientEmail: String
    let keyID: String
    let tokenURI: String
    let http: HTTP2Client
    /// The sandbox's expiry clock (scenario time).
    let clock: LockedValue<Date>
    private let key: JWTSigningKey

    private init(
        sandbox: FCMSandbox, ports: FCMSandbox.Ports, caFile: String, serviceAccountFile: URL, clientEmail: String,
        keyID: String, tokenURI: String, http: HTTP2Client, clock: LockedValue<Date>, key: JWTSigningKey
    ) {
        self.sandbox = sandbox
        self.ports = ports
        self.caFile = caFile
        self.serviceAccountFile = serviceAccountFile
        self.clientEmail = clientEmail
        self.keyID = keyID
        self.tokenURI = tokenURI
        self.http = http
        self.clock = clock
        self.key = key
    }

    /// Starts a sandbox, runs `body`, then stops everything and deletes the files, also when `body` throws.
    /// - Parameter configure: adjusts the sandbox's configuration (rule numbers) first.
    static func with<T>(
        configure: (inout FCMSandbox.Configuration) -> Void = { _ in },
        _ body: (FCMSandboxFixture) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-fcm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory)
        var configuration = FCMSandbox.Configuration(
            certificatePath: tls.serverCertificate.path,
            privateKeyPath: tls.serverPrivateKey.path)
        configure(&configuration)
        let clock = LockedValue(Date(timeIntervalSince1970: 1_800_000_000))
        let sandbox = FCMSandbox(configuration: configuration, expiryNow: { clock.snapshot }, logger: .silent())
        let ports = try sandbox.start()
        defer { sandbox.shutdown() }
        let tokenURI = try #require(sandbox.tokenURI)
        let json = try FCMSandboxServiceAccountFile.make(projectID: project, tokenURI: tokenURI)
        let file = directory.appendingPathComponent("service-account.json")
        try json.write(to: file)
        try sandbox.addServiceAccount(json: json)
        let fields = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        let key = try JWTSigningKey(pem: try #require(fields["private_key"]))
        let http = try HTTP2Client(configuration: .init(caFile: tls.caCertificate.path))
        defer { http.shutdown() }
        let fixture = FCMSandboxFixture(
            sandbox: sandbox, ports: ports, caFile: tls.caCertificate.path,
            serviceAccountFile: file, clientEmail: try #require(fields["client_email"]),
            keyID: try #require(fields["private_key_id"]), tokenURI: tokenURI, http: http,
            clock: clock, key: key)
        return try await body(fixture)
    }

    private struct GrantClaims: Encodable {
        var iss: String
        var aud: String
        var scope: String
        var iat: Int64
        var exp: Int64
    }

    /// A signed JWT grant of the fixture's account.
    func assertion(scope: String = FCMSandboxFixture.messagingScope, lifetime: Int64 = 3600) throws -> String {
        let iat = Int64(Date().timeIntervalSince1970)
        return try JWT.sign(
            GrantClaims(iss: clientEmail, aud: tokenURI, scope: scope, iat: iat, exp: iat + lifetime),
            keyID: keyID, with: key)
    }

    /// `POST /token` with a form body.
    /// - Parameter port: the sandbox port to use; the HTTP/2 one by default.
    func postToken(_ form: String, port: Int? = nil) async throws -> (status: Int, json: [String: Any]) {
        let response = try await exchange(
            HTTP2Request(
                url: "https://localhost:\(port ?? ports.http2)/token",
                headers: [.init("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
                timeout: 30))
        return (
            response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        )
    }

    /// An access token for the fixture's account.
    func accessToken(scope: String = FCMSandboxFixture.messagingScope) async throws -> String {
        let form =
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(try assertion(scope: scope))"
        let (status, json) = try await postToken(form)
        guard status == 200, let token = json["access_token"] as? String else {
            throw FixtureError("grant answered \(status): \(json)")
        }
        return token
    }

    /// `POST /v1/projects/<project>/messages:send`.
    func send(
        _ body: String, accessToken: String, project: String = FCMSandboxFixture.project, port: Int? = nil,
        timeout: TimeInterval = 30
    ) async throws -> HTTP2Response {
        try await exchange(
            HTTP2Request(
                url: "https://localhost:\(port ?? ports.http2)/v1/projects/\(project)/messages:send",
                headers: [.init("authorization", "Bearer \(accessToken)"), .init("content-type", "application/json")],
                body: Array(body.utf8), timeout: timeout))
    }

    /// A data message for `token`: `{"message": {"token", "data": {"n": name}, "android": {...}}}`.
    static func message(
        to token: String, name: String = "m", priority: String = "HIGH", ttl: String = "60s",
        collapseKey: String? = nil
    ) -> String {
        let collapse = collapseKey.map { #", "collapse_key": "\#($0)""# } ?? ""
        return
            #"{"message": {"token": "\#(token)", "data": {"n": "\#(name)"}, "android": {"priority": "\#(priority)", "ttl": "\#(ttl)"\#(collapse)}}}"#
    }

    /// A control route on the HTTP/2 port.
    func control(
        _ method: String, _ path: String, json: String? = nil, port: Int? = nil
    ) async throws
        -> (status: Int, body: String)
    {
        let response = try await exchange(
            HTTP2Request(
                url: "https://localhost:\(port ?? ports.http2)\(path)", method: method,
                headers: json == nil ? [] : [.init("content-type", "application/json")], body: Array((json ?? "").utf8),
                timeout: 30))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// Sends `request` over HTTP/2 (the fixture's client) to the HTTP/2 port, and over HTTP/1.1 (curl, an independent
    /// client) to the HTTP/1.1 port, which offers nothing else (docs/decisions/0001-refuse-h2c-upgrade.md).
    func exchange(_ request: HTTP2Request) async throws -> HTTP2Response {
        guard let http1 = ports.http1, request.url.contains("localhost:\(http1)/") else {
            return try await http.send(request)
        }
        var arguments = [
            "curl", "-sS", "--http1.1", "--cacert", caFile, "-X", request.method, "--max-time", "30",
            "-o", "-", "-w", "\n%{http_code}", request.url,
        ]
        for header in request.headers { arguments += ["-H", "\(header.name): \(header.value)"] }
        if !request.body.isEmpty { arguments += ["--data-binary", String(decoding: request.body, as: UTF8.self)] }
        let result = try await ChildProcess.run(arguments, timeout: 40)
        guard result.status == 0, let cut = result.standardOutput.lastIndex(of: "\n"),
            let status = Int(result.standardOutput[result.standardOutput.index(after: cut)...])
        else {
            throw FixtureError("curl \(request.url): \(result.standardError)")
        }
        return HTTP2Response(status: status, body: Array(result.standardOutput[..<cut].utf8), httpVersion: 1)
    }

    /// The expiry clock's time.
    var scenarioNow: Date { clock.snapshot }

    /// Moves the expiry clock forward.
    func advance(_ seconds: TimeInterval) {
        clock.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The JSON object of a body.
    static func object(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
    }

    /// The `FcmError` code of an error body, if any.
    static func fcmErrorCode(_ bytes: [UInt8]) -> String? {
        let details = (object(bytes)["error"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
        return details.first { $0["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }?[
            "errorCode"] as? String
    }
}

/// A fixture step that did not go as planned.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a simulated phone received, in order, answering each message with a set receipt.
final class ReceivingPhone: Sendable {
    private let received = LockedValue<[FCMSandboxMessage]>([])
    private let receipt: LockedValue<FCMSandboxReceipt>

    init(answering receipt: FCMSandboxReceipt = .userVisible) {
        self.receipt = LockedValue(receipt)
    }

    var messages: [FCMSandboxMessage] { received.snapshot }
    var names: [String] { received.snapshot.map { $0.data["n"] ?? "?" } }

    func answer(with receipt: FCMSandboxReceipt) { self.receipt.withLock { $0 = receipt } }

    var deliver: @Sendable (FCMSandboxMessage) async -> FCMSandboxReceipt {
        { [self] message in
            received.withLock { $0.append(message) }
            return receipt.snapshot
        }
    }
}
