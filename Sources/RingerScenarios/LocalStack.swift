public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DevCertificates
import JWT
public import RingerKit
public import RingerLogging
public import RingerSandbox
public import RingerServer
import RingerSync
import RingerWire

/// A whole Ringer installation on loopback, in one process: a throw-away CA and APNs key in a temporary
/// folder, the APNs sandbox (HTTP/2 + TLS), and the Ringer server (SQLite in the same folder) sending
/// its VoIP pushes to the sandbox. Used by `ringer demo`, scenarios and end-to-end tests.
public final class LocalStack: Sendable {
    /// How to build the stack.
    public struct Options: Sendable {
        /// Seconds a call rings before `unanswered`.
        public var ringTimeout: TimeInterval = 45
        /// Server log destination.
        public var logger: Logger = .silent()
        /// Told of every server observation.
        public var observe: @Sendable (ServerObservation) -> Void = { _ in }

        /// Creates the defaults.
        public init() {}
    }

    /// The temporary folder holding keys, certificates and the database; removed by ``shutdown()``.
    public let directory: URL
    /// The server's base URL, `http://127.0.0.1:<port>`.
    public let serverURL: URL
    /// The APNs sandbox.
    public let sandbox: APNsSandbox
    /// The Ringer server.
    public let server: RingerServer
    /// WebSockets for simulated phones.
    public let webSockets: any WebSocketTransport
    private let adminKey: String
    /// Phones made by ``phone(user:name:deviceID:behaviour:observe:)``, switched off by ``shutdown()``.
    private let phones = LockedValue<[SimulatedIPhone]>([])

    private init(directory: URL, serverURL: URL, sandbox: APNsSandbox, server: RingerServer, adminKey: String) {
        self.directory = directory
        self.serverURL = serverURL
        self.sandbox = sandbox
        self.server = server
        self.adminKey = adminKey
        webSockets = LWSWebSocketTransport()
    }

    /// Creates keys and certificates, starts the sandbox and the server.
    /// - Throws: when a port cannot be bound or a file cannot be written.
    public static func start(_ options: Options = Options()) async throws -> LocalStack {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let authority = try DevCertificateAuthority.create()
        let tls = try authority.write(to: directory.appendingPathComponent("tls"))

        // An APNs signing key as Apple issues it: a PKCS#8 EC P-256 `.p8`, with a key id and team id.
        let apnsKey = try JWTSigningKey.generateP256()
        let keyFile = directory.appendingPathComponent("AuthKey_RINGERDEMO.p8")
        try Data(try apnsKey.pkcs8PEM().utf8).write(to: keyFile, options: .atomic)
        let (keyID, teamID) = ("RINGERDEMO", "RINGERTEAM")

        let sandbox = APNsSandbox(configuration: .init(certificatePath: tls.serverCertificate.path,
                                                       privateKeyPath: tls.serverPrivateKey.path),
                                  logger: options.logger)
        try sandbox.addProviderKey(keyID: keyID, teamID: teamID, publicKeyPEM: try apnsKey.publicKeyPEM())
        let sandboxPort = try sandbox.start()

        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
        config.adminKey = Self.randomSecret()
        config.userTokenSecret = Self.randomSecret()
        config.ringTimeout = options.ringTimeout
        var apns = ServerConfiguration.APNsSettings(keyFile: keyFile.path, keyID: keyID, teamID: teamID)
        apns.sandboxURL = "https://localhost:\(sandboxPort)"
        apns.productionURL = apns.sandboxURL
        apns.caFile = tls.caCertificate.path
        config.apns = apns
        let server = try RingerServer(configuration: config, logger: options.logger, observe: options.observe)
        let port = try await server.start()
        return LocalStack(directory: directory, serverURL: URL(string: "http://127.0.0.1:\(port)")!,
                          sandbox: sandbox, server: server, adminKey: config.adminKey)
    }

    /// Mints a user token through the admin API, as an app's backend would after its own login.
    /// - Throws: ``RingerAPIError`` when the server refuses.
    public func userToken(for userID: String, name: String?) async throws -> String {
        var request = URLRequest(url: serverURL.appendingPathComponent("v1/tokens"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + adminKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try RingerJSON.encode(CreateTokenRequest(userId: userID, name: name, ttlSeconds: 3600))
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw RingerAPIError.unexpectedResponse("POST /v1/tokens: \(String(decoding: data, as: UTF8.self))")
        }
        return try RingerJSON.decode(TokenResponse.self, from: data).token
    }

    /// A phone for `userID`, logged in and registered, app in the foreground.
    /// - Throws: when registration fails.
    public func phone(user userID: String, name: String?, deviceID: String, behaviour: SimulatedIPhone.Behaviour,
                      observe: @escaping @Sendable (SimulatedIPhone.Observation) -> Void = { _ in })
        async throws -> SimulatedIPhone {
        let token = try await userToken(for: userID, name: name)
        let phone = SimulatedIPhone(identity: .init(userID: userID, deviceID: deviceID), server: serverURL,
                                    userToken: token, webSockets: webSockets, behaviour: behaviour, observe: observe)
        phones.withLock { $0.append(phone) }
        try await phone.installAndLogIn(sandbox: sandbox)
        return phone
    }

    /// Switches the phones off, stops the server and the sandbox, and removes the temporary folder.
    public func shutdown() async {
        for phone in phones.withLock({ $0 }) { phone.setAppState(.killed) }
        await server.shutdown()
        sandbox.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func randomSecret() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
