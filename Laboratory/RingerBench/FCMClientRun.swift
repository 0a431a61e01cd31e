import FCM
import Foundation

/// What `ringer-lab bench --send-fcm` does: Ringer's ``FCMClient`` sends a workload of ringing messages to an FCM
/// sandbox at a URL, over its pool of HTTP/2 connections, and reports the figures. The access token comes
/// from the service account's `token_uri` (the sandbox's token endpoint), as the server gets it.
public struct FCMClientRun: Sendable {
    /// The sandbox's base URL, e.g. `https://127.0.0.1:2198` (its HTTP/2 port).
    public var url: String
    /// PEM CA that signed the sandbox's certificate (for messages and the token endpoint).
    public var caFile: String
    /// The service-account JSON (its `token_uri` points at the sandbox).
    public var serviceAccountFile: String
    /// A registration token the sandbox knows, of the account's project.
    public var token: String
    /// A file holding the `data.ringer` JSON string.
    public var ringerFile: String
    /// `android.collapse_key` (the call id).
    public var collapseKey: String
    /// Counts.
    public var workload: PushWorkload
    /// The client's pool size (`FCMClient.Configuration.connections`).
    public var connections: Int

    /// Creates a run.
    /// - Parameters:
    ///   - url: sandbox base URL.
    ///   - caFile: CA PEM path.
    ///   - serviceAccountFile: service-account JSON path.
    ///   - token: registration token.
    ///   - ringerFile: path of the `data.ringer` JSON.
    ///   - collapseKey: `android.collapse_key`.
    ///   - workload: counts.
    ///   - connections: pool size; default 2 (the client's default).
    public init(
        url: String, caFile: String, serviceAccountFile: String, token: String, ringerFile: String,
        collapseKey: String, workload: PushWorkload, connections: Int = 2
    ) {
        self.url = url
        self.caFile = caFile
        self.serviceAccountFile = serviceAccountFile
        self.token = token
        self.ringerFile = ringerFile
        self.collapseKey = collapseKey
        self.workload = workload
        self.connections = connections
    }

    /// Sends the workload and shuts the client down. The first grant happens inside the timed run, as the
    /// first ringing message of a server that just started would make it.
    /// - Returns: the figures (refused messages are counted, not thrown).
    /// - Throws: ``BenchmarkError/setup(_:)`` when the account or the ringer file cannot be read, or the
    ///   client cannot start.
    public func run() async throws -> SenderReport {
        let ringer: String
        let client: FCMClient
        do {
            let account = try FCMServiceAccount(contentsOfFile: serviceAccountFile)
            ringer = try String(contentsOfFile: ringerFile, encoding: .utf8)
            client = try FCMClient(
                configuration: .init(
                    serviceAccounts: [account], baseURL: url, caFile: caFile,
                    requestTimeout: 30, connections: connections))
        } catch {
            throw BenchmarkError.setup("cannot set up Ringer's FCM client: \(error)")
        }
        defer { client.shutdown() }
        let generator = FCMLoadGenerator(client: client, token: token, ringer: ringer, collapseKey: collapseKey)
        return await generator.run(workload)
    }
}
