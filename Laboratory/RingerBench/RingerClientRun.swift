import APNs
import Foundation
import JWT

/// What `ringer-lab bench --send` does: Ringer's ``APNsClient`` sends a workload to an APNs sandbox at a URL,
/// over its pool of HTTP/2 connections, and reports the figures.
public struct RingerClientRun: Sendable {
    /// The sandbox's base URL, e.g. `https://127.0.0.1:2197`.
    public var url: String
    /// PEM CA that signed the sandbox's certificate.
    public var caFile: String
    /// The `.p8` signing key (the sandbox must trust it).
    public var keyFile: String
    /// The key's 10-character key id (`kid`).
    public var keyID: String
    /// The 10-character team id (`iss`).
    public var teamID: String
    /// A hex device token the sandbox knows.
    public var deviceToken: String
    /// The VoIP topic of the token's app, `<bundle id>.voip`.
    public var topic: String
    /// The JSON payload file.
    public var payloadFile: String
    /// Counts.
    public var workload: PushWorkload
    /// The client's pool size (`APNsClient.Configuration.connectionsPerHost`).
    public var connections: Int

    /// Creates a run.
    /// - Parameters:
    ///   - url: sandbox base URL.
    ///   - caFile: CA PEM path.
    ///   - keyFile: `.p8` path.
    ///   - keyID: 10-character key id.
    ///   - teamID: 10-character team id.
    ///   - deviceToken: hex device token.
    ///   - topic: `<bundle id>.voip`.
    ///   - payloadFile: JSON payload path.
    ///   - workload: counts.
    ///   - connections: pool size; default 2 (the client's default).
    public init(
        url: String, caFile: String, keyFile: String, keyID: String, teamID: String, deviceToken: String,
        topic: String, payloadFile: String, workload: PushWorkload, connections: Int = 2
    ) {
        self.url = url
        self.caFile = caFile
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.deviceToken = deviceToken
        self.topic = topic
        self.payloadFile = payloadFile
        self.workload = workload
        self.connections = connections
    }

    /// Sends the workload and shuts the client down.
    /// - Returns: the figures (refused pushes are counted, not thrown).
    /// - Throws: ``BenchmarkError/setup(_:)`` when the key or payload cannot be read, or the client cannot start.
    public func run() async throws -> SenderReport {
        let key: JWTSigningKey
        let payload: [UInt8]
        let client: APNsClient
        do {
            key = try JWTSigningKey(pem: try String(contentsOfFile: keyFile, encoding: .utf8))
            payload = Array(try Data(contentsOf: URL(fileURLWithPath: payloadFile)))
            client = try APNsClient(
                configuration: .init(
                    credentials: .init(key: key, keyID: keyID, teamID: teamID),
                    sandboxURL: url, caFile: caFile, requestTimeout: 30,
                    voipRequestTimeout: 30, connectionsPerHost: connections))
        } catch {
            throw BenchmarkError.setup("cannot set up Ringer's APNs client: \(error)")
        }
        defer { client.shutdown() }
        let generator = APNsLoadGenerator(client: client, deviceToken: deviceToken, topic: topic, payload: payload)
        return await generator.run(workload)
    }
}
