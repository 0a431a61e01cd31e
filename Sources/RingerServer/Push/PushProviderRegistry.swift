import APNs
import FCM
import Foundation
import JWT
import OpenSSLSupport
import RingerStore
import RingerSupport
import RingerWire

/// Which credentials push to which app (decision 0009 §4): those added through the API (`/v1/push-providers`), each
/// for its bundle ids or its Firebase project, and the flags' as the default for everything else. Every server
/// reloads the API's providers within ``pollInterval`` of a change, with no restart: a provider whose credential
/// changed gets a new client, and the old one is kept ``retirementGrace`` more, so a push already on it finishes.
final class PushProviderRegistry: Sendable {
    /// The senders of the providers added through the API.
    private struct Table: Sendable {
        var version = ""
        var apnsByBundle: [String: APNsPushSender] = [:]
        var fcmByProject: [String: FCMPushSender] = [:]
        /// Each provider's client, by id, with the sealed credential it was made from (sealed anew, with a fresh nonce,
        /// at every change: a different text is a different credential, whatever the clocks say).
        var clients: [String: (credential: String, client: ProviderClient)] = [:]
    }

    /// A provider's client.
    enum ProviderClient: Sendable {
        case apns(APNsClient)
        case fcm(FCMClient)

        func shutdown() {
            switch self {
            case .apns(let client): client.shutdown()
            case .fcm(let client): client.shutdown()
            }
        }
    }

    /// Where APNs and FCM are, for every provider's client: the flags' hosts and CA, Apple's and Google's by default.
    struct Hosts: Sendable {
        var apnsSandboxURL = "https://api.sandbox.push.apple.com"
        var apnsProductionURL = "https://api.push.apple.com"
        var apnsCAFile: String?
        var fcmBaseURL = FCM.defaultBaseURL
        var fcmCAFile: String?

        /// Apple's and Google's.
        init() {}

        /// The flags' hosts and CA files, where given.
        init(configuration: ServerConfiguration) {
            if let settings = configuration.apns {
                (apnsSandboxURL, apnsProductionURL) = (settings.sandboxURL, settings.productionURL)
                apnsCAFile = settings.caFile
            }
            if let settings = configuration.fcm { (fcmBaseURL, fcmCAFile) = (settings.baseURL, settings.caFile) }
        }
    }

    /// Seconds between checks for a change of the providers.
    static let pollInterval: TimeInterval = 1
    /// Seconds a replaced or removed provider's client is kept for the pushes already on it: a ringing push's retries
    /// are over within its ring; a missed-call alert that waits out a provider's long `Retry-After` on the old client
    /// past this fails, and tells so in its push record.
    static let retirementGrace: TimeInterval = 600
    /// Seconds between two logs of the same failure to read or use the providers.
    static let failureLogInterval: TimeInterval = 60

    private let store: any RingerStore
    private let secrets: SecretBox?
    private let hosts: Hosts
    private let defaultAPNs: APNsPushSender?
    private let defaultFCM: FCMPushSender?
    private let log: Logger
    private let table = LockedValue(Table())
    private let loop = LockedValue<Task<Void, Never>?>(nil)
    /// One reload at a time: two would each build clients for the same change, and the slower could put back the table
    /// the faster replaced.
    private let reloading = KeyedAsyncLock()
    /// When each failure was last logged, by what failed.
    private let failureLogged = LockedValue<[String: Date]>([:])
    /// Set by ``shutdown()``: a reload finishing after it shuts its clients down instead of installing them.
    private let stopped = LockedValue(false)

    init(
        store: any RingerStore, secrets: SecretBox?, hosts: Hosts, defaultAPNs: APNsClient?, defaultFCM: FCMClient?,
        log: Logger
    ) {
        self.store = store
        self.secrets = secrets
        self.hosts = hosts
        self.defaultAPNs = defaultAPNs.map { APNsPushSender(client: $0) }
        self.defaultFCM = defaultFCM.map { FCMPushSender(client: $0) }
        self.log = log
    }

    /// The sender for an iPhone: its bundle id's provider, else the default.
    func apns(for device: Device) -> APNsPushSender? {
        guard let bundle = device.bundleID, let sender = table.withLock({ $0.apnsByBundle[bundle] }) else {
            return defaultAPNs
        }
        return sender
    }

    /// The sender for an Android phone: its Firebase project's provider, else the default (which knows the flags'
    /// projects).
    func fcm(for device: Device) -> FCMPushSender? {
        guard let project = device.fcmProjectID, let sender = table.withLock({ $0.fcmByProject[project] }) else {
            return defaultFCM
        }
        return sender
    }

    /// The Firebase projects the server sends through: the flags', then the providers'.
    var fcmProjects: [String] {
        (defaultFCM?.client.projectIDs ?? []) + table.withLock { Array($0.fcmByProject.keys).sorted() }
    }

    /// Loads the providers, then checks for changes every ``pollInterval`` until ``shutdown()``.
    func start() async {
        await reload()
        loop.withLock { loop in
            guard loop == nil else { return }
            loop = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(Self.pollInterval))
                    await self?.reload()
                }
            }
        }
    }

    /// Stops checking and shuts every provider's client down (after the server's pushes in flight were waited for).
    func shutdown() {
        stopped.withLock { $0 = true }
        loop.withLock { $0?.cancel() }
        let clients = table.withLock { table in
            defer { table = Table() }
            return table.clients.values.map(\.client)
        }
        for client in clients { client.shutdown() }
    }

    /// Logs a failure, at most once per ``failureLogInterval`` for the same `key`.
    private func logFailure(_ key: String, _ message: String, _ metadata: Logger.Metadata) {
        let now = Date()
        let due = failureLogged.withLock { logged -> Bool in
            if let last = logged[key], now.timeIntervalSince(last) < Self.failureLogInterval { return false }
            logged[key] = now
            return true
        }
        if due { log.error("\(message)", metadata) }
    }

    /// Rebuilds the table when the store's providers changed (their revision moved): clients are made for new or
    /// replaced providers only. One at a time. A provider whose client cannot be made (its credential does not open
    /// here: no or another `--secrets-key`) is left out, and the revision is not recorded, so the next poll tries again.
    func reload() async {
        // Off the web server's service thread, where an API request's handler runs (issue 33): a reload reads key
        // files, starts clients' threads and waits for replaced ones to end, which would stall every connection.
        await withTaskExecutorPreference(globalConcurrentExecutor) {
            await reloading.withLocks(["reload"]) { await self.reloadNow() }
        }
    }

    private func reloadNow() async {
        let version: String
        let providers: [StoredPushProvider]
        do {
            version = try await store.pushProvidersVersion()
            guard version != table.withLock({ $0.version }) else { return }
            providers = try await store.pushProviders()
        } catch {
            logFailure("read", "cannot read the push providers", ["error": .string("\(error)")])
            return
        }
        var next = Table(version: version)
        var kept = table.withLock { $0.clients }
        var complete = true
        for provider in providers {
            let id = provider.info.providerID
            let client: ProviderClient
            if let existing = kept[id], existing.credential == provider.sealedCredential {
                client = existing.client
                kept[id] = nil
            } else {
                do {
                    client = try Self.makeClient(provider, secrets: secrets, hosts: hosts)
                } catch {
                    complete = false
                    logFailure(
                        id, "a push provider cannot be used here: its devices get the default credentials meanwhile",
                        ["push.provider": .string(provider.info.name), "error": .string("\(error)")])
                    continue
                }
            }
            next.clients[id] = (provider.sealedCredential, client)
            switch client {
            case .apns(let apns):
                let sender = APNsPushSender(client: apns)
                for bundle in provider.info.bundleIDs ?? [] { next.apnsByBundle[bundle] = sender }
            case .fcm(let fcm):
                if let project = provider.info.projectID { next.fcmByProject[project] = FCMPushSender(client: fcm) }
            }
        }
        // Not recorded while a provider is missing, so the next poll builds it.
        if !complete { next.version = "" }
        guard !stopped.snapshot else {
            for (id, entry) in next.clients where kept[id] == nil && table.withLock({ $0.clients[id] == nil }) {
                entry.client.shutdown()
            }
            return
        }
        table.withLock { $0 = next }
        // Replaced or removed: kept a while for the pushes already on them.
        let retired = kept.values.map(\.client)
        if !retired.isEmpty {
            Task {
                try? await Task.sleep(for: .seconds(Self.retirementGrace))
                for client in retired { client.shutdown() }
            }
        }
        log.info("push providers loaded", ["push.providers": .string("\(next.clients.count)")])
    }

    /// A client for a stored provider, its credential opened (the registry's, and `ringer doctor`'s).
    /// - Throws: when the credential does not open or does not parse (it did when stored).
    static func makeClient(_ provider: StoredPushProvider, secrets: SecretBox?, hosts: Hosts) throws -> ProviderClient {
        guard let secrets else { throw SecretBox.Failure.unknownKey("none (no --secrets-key)") }
        let credential = try secrets.open(
            provider.sealedCredential, context: PushProviderAdmin.sealingContext(provider.info.providerID))
        switch provider.info.kind {
        case .fcm:
            let account = try FCMServiceAccount(json: Data(credential), source: "push provider \(provider.info.name)")
            return .fcm(
                try FCMClient(
                    configuration: .init(serviceAccounts: [account], baseURL: hosts.fcmBaseURL, caFile: hosts.fcmCAFile)
                ))
        default:
            let key = try JWTSigningKey(pem: String(decoding: credential, as: UTF8.self))
            return .apns(
                try APNsClient(
                    configuration: .init(
                        credentials: .init(
                            key: key, keyID: provider.info.keyID ?? "", teamID: provider.info.teamID ?? ""),
                        sandboxURL: hosts.apnsSandboxURL, productionURL: hosts.apnsProductionURL,
                        caFile: hosts.apnsCAFile)))
        }
    }
}
