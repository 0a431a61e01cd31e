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

/// A whole Ringer installation on loopback, in one process: a throw-away CA, APNs key and Firebase service
/// account in a temporary folder, the APNs sandbox and the FCM sandbox (HTTP/2 + TLS), and the Ringer server
/// (SQLite in the same folder) sending its VoIP pushes and FCM messages to them. Used by `ringer demo`,
/// scenarios and end-to-end tests.
public final class LocalStack: Sendable {
    /// How to build the stack.
    public struct Options: Sendable {
        /// Seconds a call rings before `unanswered`.
        public var ringTimeout: TimeInterval = 45
        /// Seconds an accepted call may go unheard from before it ends `connection_lost`.
        public var callIdleTimeout: TimeInterval = 120
        /// Seconds after the answer at which an accepted call ends `max_duration`.
        public var maxCallDuration: TimeInterval = 14_400
        /// Server log destination.
        public var logger: Logger = .silent()
        /// Told of every server observation.
        public var observe: @Sendable (ServerObservation) -> Void = { _ in }
        /// The server's time, which the phones and the sandbox's push expiry share; provider-token ages
        /// stay on real time. A ``ScenarioClock`` runs it faster.
        public var clock: any ServerClock = SystemServerClock()

        /// Creates the defaults.
        public init() {}
    }

    /// The temporary folder holding keys, certificates and the database; removed by ``shutdown()``.
    public let directory: URL
    /// The server's base URL, `http://127.0.0.1:<port>`.
    public let serverURL: URL
    /// The APNs sandbox.
    public let sandbox: APNsSandbox
    /// The FCM sandbox (Google's token endpoint and `messages:send`), delivering to simulated Android phones.
    public let fcmSandbox: FCMSandbox
    /// The Firebase project the server sends through and the Android phones belong to.
    public static let firebaseProject = "ringer-demo"
    /// The Ringer server (a new instance after ``restartServer(downFor:)``).
    public var server: RingerServer { current.withLock { $0 } }
    /// WebSockets for simulated phones.
    public let webSockets: any WebSocketTransport
    private let current: LockedValue<RingerServer>
    /// The running server's configuration, with its bound port, so a restart listens where phones connect.
    private let configuration: ServerConfiguration
    private let options: Options
    private let adminKey: String
    /// Phones made by ``phone(user:name:deviceID:behaviour:loggedIn:observe:)``, switched off by ``shutdown()``.
    private let phones = LockedValue<[SimulatedIPhone]>([])
    /// Android phones made by ``androidPhone(user:name:deviceID:behaviour:permissions:loggedIn:observe:)``.
    private let androidPhones = LockedValue<[SimulatedAndroidPhone]>([])

    private init(directory: URL, serverURL: URL, sandbox: APNsSandbox, fcmSandbox: FCMSandbox, server: RingerServer,
                 configuration: ServerConfiguration, options: Options) {
        self.directory = directory
        self.serverURL = serverURL
        self.sandbox = sandbox
        self.fcmSandbox = fcmSandbox
        current = LockedValue(server)
        self.configuration = configuration
        self.options = options
        adminKey = configuration.adminKey
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
                                  expiryNow: options.clock.now, logger: options.logger)
        try sandbox.addProviderKey(keyID: keyID, teamID: teamID, publicKeyPEM: try apnsKey.publicKeyPEM())
        let sandboxPort = try sandbox.start()

        // A Firebase service account whose token URI is the FCM sandbox's, trusted by it. Grants and access
        // tokens age on real time; message ttl on the stack's clock.
        let fcmSandbox = FCMSandbox(configuration: .init(port: 0, http1Port: nil, certificatePath: tls.serverCertificate.path,
                                                         privateKeyPath: tls.serverPrivateKey.path),
                                    expiryNow: options.clock.now, logger: options.logger)
        let fcmPort = try fcmSandbox.start().http2
        let account = try FCMSandboxServiceAccountFile.make(projectID: firebaseProject,
                                                            tokenURI: "https://localhost:\(fcmPort)/token")
        let accountFile = directory.appendingPathComponent("firebase-service-account.json")
        try account.write(to: accountFile, options: .atomic)
        try fcmSandbox.addServiceAccount(json: account)

        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
        config.adminKey = Self.randomSecret()
        config.userTokenSecret = Self.randomSecret()
        config.ringTimeout = options.ringTimeout
        config.callIdleTimeout = options.callIdleTimeout
        config.maxCallDuration = options.maxCallDuration
        var apns = ServerConfiguration.APNsSettings(keyFile: keyFile.path, keyID: keyID, teamID: teamID)
        apns.sandboxURL = "https://localhost:\(sandboxPort)"
        apns.productionURL = apns.sandboxURL
        apns.caFile = tls.caCertificate.path
        config.apns = apns
        var fcm = ServerConfiguration.FCMSettings(serviceAccountFiles: [accountFile.path])
        fcm.baseURL = "https://localhost:\(fcmPort)"
        fcm.caFile = tls.caCertificate.path
        config.fcm = fcm
        let server = try RingerServer(configuration: config, clock: options.clock, logger: options.logger,
                                      observe: options.observe)
        let port = try await server.start()
        config.port = port
        return LocalStack(directory: directory, serverURL: URL(string: "http://127.0.0.1:\(port)")!,
                          sandbox: sandbox, fcmSandbox: fcmSandbox, server: server, configuration: config,
                          options: options)
    }

    /// Stops the server as a crash or a deploy would (timers and sockets gone), waits, and starts a new
    /// server on the same database and port; it reschedules the stored ring deadlines.
    /// - Parameter seconds: real seconds the server stays down.
    /// - Throws: when the new server cannot open the database or bind the port.
    public func restartServer(downFor seconds: TimeInterval) async throws {
        await server.shutdown()
        if seconds > 0 { try? await Task.sleep(for: .seconds(seconds)) }
        let next = try RingerServer(configuration: configuration, clock: options.clock, logger: options.logger,
                                    observe: options.observe)
        // The old listener may take a moment to release the port.
        var attempt = 0
        while true {
            do {
                try await next.start()
                break
            } catch where attempt < 50 {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        current.withLock { $0 = next }
    }

    /// Mints a user token through the admin API, as an app's backend would after its own login.
    /// - Throws: ``RingerAPIError`` when the server refuses.
    public func userToken(for userID: String, name: String?) async throws -> String {
        var request = URLRequest(url: serverURL.appendingPathComponent("v1/tokens"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + adminKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // A day of server time: scenarios run the clock up to a thousand times faster than real time.
        request.httpBody = try RingerJSON.encode(CreateTokenRequest(userId: userID, name: name, ttlSeconds: 86_400))
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw RingerAPIError.unexpectedResponse("POST /v1/tokens: \(String(decoding: data, as: UTF8.self))")
        }
        return try RingerJSON.decode(TokenResponse.self, from: data).token
    }

    /// A phone for `userID`, logged in and registered, app in the foreground, on the stack's clock.
    /// - Parameters:
    ///   - userID: the user who logs in.
    ///   - name: the user's display name.
    ///   - deviceID: the app's device id.
    ///   - behaviour: what the user does when it rings.
    ///   - loggedIn: false to install the app with no user logged in: the server must refuse its registration.
    ///   - observe: told of everything that happens on the phone.
    /// - Returns: the registered phone.
    /// - Throws: ``RingerAPIError`` when the user token cannot be minted or the server refuses the
    ///   registration (then the app is stopped, as an app back at its login screen holds no socket).
    public func phone(user userID: String, name: String?, deviceID: String, behaviour: SimulatedIPhone.Behaviour,
                      loggedIn: Bool = true,
                      observe: @escaping @Sendable (SimulatedIPhone.Observation) -> Void = { _ in })
        async throws -> SimulatedIPhone {
        let token = loggedIn ? try await userToken(for: userID, name: name) : ""
        let phone = SimulatedIPhone(identity: .init(userID: userID, deviceID: deviceID), server: serverURL,
                                    userToken: token, webSockets: webSockets, behaviour: behaviour,
                                    now: options.clock.now, sleepUntil: options.clock.sleep(until:), observe: observe)
        phones.withLock { $0.append(phone) }
        do {
            try await phone.installAndLogIn(sandbox: sandbox)
        } catch {
            phone.setAppState(.killed)
            throw error
        }
        return phone
    }

    /// An Android phone for `userID` in the stack's Firebase project, logged in and registered, app in the
    /// foreground, on the stack's clock, its token registered with the FCM sandbox.
    /// - Parameters:
    ///   - userID: the user who logs in.
    ///   - name: the user's display name.
    ///   - deviceID: the app's device id.
    ///   - behaviour: what the user does when it rings.
    ///   - permissions: the Android permissions granted (all by default).
    ///   - loggedIn: false to install the app with no user logged in: the server must refuse its registration.
    ///   - observe: told of everything that happens on the phone.
    /// - Returns: the registered phone.
    /// - Throws: ``RingerAPIError`` when the user token cannot be minted or the server refuses the
    ///   registration (then the app is force-stopped, as an app back at its login screen holds no socket).
    public func androidPhone(user userID: String, name: String?, deviceID: String, behaviour: SimulatedAndroidPhone.Behaviour,
                             permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases), loggedIn: Bool = true,
                             observe: @escaping @Sendable (SimulatedAndroidPhone.Observation) -> Void = { _ in })
        async throws -> SimulatedAndroidPhone {
        let token = loggedIn ? try await userToken(for: userID, name: name) : ""
        let phone = SimulatedAndroidPhone(identity: .init(userID: userID, deviceID: deviceID, projectID: Self.firebaseProject),
                                          server: serverURL, userToken: token, webSockets: webSockets, behaviour: behaviour,
                                          permissions: permissions, now: options.clock.now,
                                          sleepUntil: options.clock.sleep(until:), observe: observe)
        androidPhones.withLock { $0.append(phone) }
        do {
            try await phone.installAndLogIn(registry: fcmSandbox)
        } catch {
            phone.setAppState(.forceStopped)
            throw error
        }
        return phone
    }

    /// Switches the phones off, stops the server and the sandboxes, and removes the temporary folder.
    public func shutdown() async {
        for phone in phones.withLock({ $0 }) { phone.setAppState(.killed) }
        for phone in androidPhones.withLock({ $0 }) { phone.setAppState(.forceStopped) }
        await server.shutdown()
        sandbox.shutdown()
        fcmSandbox.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func randomSecret() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
