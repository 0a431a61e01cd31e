import APNs
import FCM
public import Foundation
import OpenSSLSupport
import RingerRedis
import RingerStore
import RingerWire

/// `ringer doctor`'s checklist (decision 0009 §5): with the configuration `ringer serve` would start with, whether
/// each thing a server needs works now, and what to fix. It changes nothing but the database's health probe row (a
/// write is the only proof that the database takes writes).
public struct ServerCheckup: Sendable {
    /// One line of the checklist.
    public struct Item: Sendable, Hashable {
        /// How it went.
        public enum Status: String, Sendable, Hashable {
            case ok, warning, failed
        }

        public var status: Status
        /// What was checked: `database`, `redis`, `apns sandbox`, `fcm project-id`, `clock`…
        public var subject: String
        /// What was found.
        public var detail: String
        /// What to do, for a warning or a failure.
        public var fix: String?
    }

    /// The configuration checked.
    public let configuration: ServerConfiguration

    /// - Parameter configuration: as `ringer serve` reads it from the same flags and environment.
    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// How far this server's clock may be from another's before ring deadlines (wall-clock times every server
    /// compares) come out visibly wrong, seconds.
    static let clockWarning: TimeInterval = 2
    /// How far off it makes APNs and Google refuse the server's signed tokens (both allow minutes), seconds.
    static let clockFailure: TimeInterval = 60

    /// Runs every check.
    /// - Parameter now: the server's clock.
    /// - Returns: the items, in the checklist's order.
    public func run(now: Date = Date()) async -> [Item] {
        var items: [Item] = []
        let store = await database(&items, now: now)
        var clocks: [(source: String, offset: TimeInterval)] = []
        redis(&items, clocks: &clocks)
        await apns(&items, store: store, clocks: &clocks, now: now)
        await fcm(&items)
        await providers(&items, store: store, clocks: &clocks)
        certificates(&items, now: now)
        await secrets(&items, store: store)
        await outbox(&items, store: store, now: now)
        if configuration.media.usesDevelopmentKey {
            items.append(
                Item(
                    status: .warning, subject: "media",
                    detail: "media tokens are signed with LiveKit's published development key",
                    fix: "set --media-api-key and --media-api-secret to your media server's pair"))
        }
        items.append(clock(clocks))
        return items
    }

    // MARK: The checks

    private func database(_ items: inout [Item], now: Date) async -> (any RingerStore)? {
        let sqlite = !PostgresTarget.isPostgresURL(configuration.databasePath)
        // A file that is not there yet is a first start's: made by `ringer serve`, not by a check.
        if sqlite, configuration.databasePath != ":memory:",
            !FileManager.default.fileExists(atPath: configuration.databasePath)
        {
            items.append(
                Item(
                    status: .warning, subject: "database",
                    detail: "\(configuration.databasePath) does not exist yet: ringer serve creates it",
                    fix: "check the path if the server has run before"))
            return nil
        }
        let started = Date()
        do {
            // As it is: a newer binary must not migrate the database of servers still running an older one.
            let store = try RingerServer.openStore(configuration, migrating: false)
            try await store.checkWritable(at: now)
            let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
            var item = Item(
                status: .ok, subject: "database",
                detail: "\(configuration.databaseDescription) takes writes (\(milliseconds) ms)")
            if let schema = try await (store as? SQLStore)?.schemaStatus() {
                if schema.version < schema.known {
                    item.status = .warning
                    item.detail += "; schema \(schema.version) of \(schema.known)"
                    item.fix =
                        "the next ringer serve of this version applies \(schema.known - schema.version) migrations"
                    // Not migrated: the checks that read the newer tables would fail for that alone.
                    items.append(item)
                    return nil
                } else if schema.version > schema.known {
                    item.status = .failed
                    item.detail +=
                        "; schema \(schema.version) was written by a newer Ringer (this one knows \(schema.known))"
                    item.fix = "run this check with the newer ringer binary"
                    items.append(item)
                    return nil
                }
            }
            items.append(item)
            return store
        } catch {
            items.append(
                Item(
                    status: .failed, subject: "database", detail: "\(error)",
                    fix: sqlite
                        ? "check the file's path and permissions and the disk's free space"
                        : "check the URL, the password, that the server is a primary and that the user may write"))
            return nil
        }
    }

    private func redis(_ items: inout [Item], clocks: inout [(source: String, offset: TimeInterval)]) {
        guard let text = configuration.redisURL else { return }
        do {
            let connection = RedisConnection(url: try RedisURL(parsing: text), connectTimeout: 3, commandTimeout: 3)
            defer { connection.close() }
            try connection.connect()
            let before = Date()
            let reply = try connection.command(["TIME"])
            let after = Date()
            let numbers = { (reply: RedisReply) in reply.data.flatMap { Double(String(decoding: $0, as: UTF8.self)) } }
            if case .array(let parts) = reply, parts.count == 2, let seconds = numbers(parts[0]),
                let micros = numbers(parts[1])
            {
                let theirs = seconds + micros / 1_000_000
                let ours = (before.timeIntervalSince1970 + after.timeIntervalSince1970) / 2
                clocks.append(("Redis", ours - theirs))
            }
            items.append(Item(status: .ok, subject: "redis", detail: "answers (TIME)"))
        } catch {
            items.append(
                Item(
                    status: .failed, subject: "redis", detail: "\(error)",
                    fix: "start Redis, or fix --redis (RINGER_REDIS): host, port, password, database"))
        }
    }

    /// Sends one notification to a token no device has, in each environment: APNs checks the provider token (or the
    /// certificate) before the device token, so `BadDeviceToken` means the credentials were accepted.
    private func apns(
        _ items: inout [Item], store: (any RingerStore)?, clocks: inout [(source: String, offset: TimeInterval)],
        now: Date
    ) async {
        guard let settings = configuration.apns else {
            items.append(
                Item(
                    status: .warning, subject: "apns",
                    detail: "no APNs credentials: iPhones ring only with the app open",
                    fix: "set --apns-key-file, --apns-key-id and --apns-team-id (or --apns-cert-file)"))
            return
        }
        let client: APNsClient
        do {
            let authentication = try RingerServer.authentication(settings.credentials)
            if case .certificate(let certificate) = authentication {
                let days = Int(certificate.notAfter.timeIntervalSince(now) / 86_400)
                items.append(
                    Item(
                        status: days < 30 ? .warning : .ok, subject: "apns certificate",
                        detail: "\(certificate.subject) expires in \(days) days",
                        fix: days < 30 ? "renew the APNs certificate in the Apple developer account" : nil))
            }
            client = try APNsClient(
                configuration: .init(
                    authentication: authentication, sandboxURL: settings.sandboxURL,
                    productionURL: settings.productionURL, caFile: settings.caFile))
        } catch {
            items.append(
                Item(
                    status: .failed, subject: "apns", detail: "\(error)",
                    fix: "fix the APNs key or certificate flags (docs/apns.md)"))
            return
        }
        defer { client.shutdown() }
        await probe(client, label: "apns", into: &items, clocks: &clocks)
    }

    /// Sends each environment one notification for a token no phone has, and judges the answers.
    private func probe(
        _ client: APNsClient, label: String, into items: inout [Item],
        clocks: inout [(source: String, offset: TimeInterval)]
    ) async {
        let topic = "dev.ringer.doctor"
        let payload = Array(#"{"aps":{"content-available":1}}"#.utf8)
        var results: [(APNsEnvironment, Item)] = []
        for environment in [APNsEnvironment.sandbox, .production] {
            let subject = "\(label) \(environment.rawValue)"
            let notification = APNsNotification(
                pushType: .background, topic: topic, priority: 5, expiration: nil, payload: payload)
            let send = {
                try await client.send(
                    notification, to: String(repeating: "0", count: 64), environment: environment,
                    deadline: Date().addingTimeInterval(10))
            }
            do {
                var (response, _) = try await send()
                // Timed again on the open connection: the first answer's wait includes the TCP, TLS and HTTP/2
                // handshakes, which would make the clock look behind.
                let started = Date()
                if let again = try? await send() { response = again.response }
                if let date = response.serverDate {
                    let ours = started.addingTimeInterval(Date().timeIntervalSince(started) / 2)
                    // An HTTP date has whole seconds: the true time is half a second past it on average.
                    clocks.append(("APNs", ours.timeIntervalSince(date) - 0.5))
                }
                results.append((environment, Self.apnsItem(subject, response)))
            } catch {
                results.append(
                    (
                        environment,
                        Item(
                            status: .failed, subject: subject, detail: "no answer: \(error)",
                            fix:
                                "check that the server reaches the APNs host on port 443 (--apns-host, a proxy, a firewall)"
                        )
                    ))
            }
        }
        // Credentials for one environment only (a production certificate, say) serve the devices registered there:
        // the other's refusal is a warning while one is accepted.
        let anyAccepted = results.contains { $0.1.status == .ok }
        for (environment, var item) in results {
            if anyAccepted, item.status == .failed {
                item.status = .warning
                item.fix =
                    (item.fix.map { $0 + "; " } ?? "")
                    + "only devices registered with apns_environment \(environment == .sandbox ? "production" : "sandbox") ring"
            }
            items.append(item)
        }
    }

    /// What one answer to a notification for a token no device has says about the credentials.
    static func apnsItem(_ subject: String, _ response: APNsResponse) -> Item {
        let reason = response.reason?.rawValue ?? "status \(response.status)"
        switch response.reason {
        case .badDeviceToken?, .deviceTokenNotForTopic?, .topicDisallowed?, .badTopic?, .unregistered?:
            return Item(status: .ok, subject: subject, detail: "credentials accepted (\(reason) for a test token)")
        case .expiredProviderToken?:
            return Item(
                status: .failed, subject: subject, detail: "APNs answered \(reason)",
                fix: "the clock is far off (see the clock line): synchronise it with NTP")
        case .invalidProviderToken?, .missingProviderToken?:
            return Item(
                status: .failed, subject: subject, detail: "APNs refused the provider token (\(reason))",
                fix: "check the key id and team id (--apns-key-id and --apns-team-id, or the push provider's) "
                    + "against the key in the Apple developer account")
        case .badCertificate?, .badCertificateEnvironment?, .missingTopic?:
            return Item(
                status: .failed, subject: subject, detail: "APNs refused the certificate (\(reason))",
                fix: "use the app's push certificate for this environment (docs/apns.md)")
        default:
            return Item(
                status: .warning, subject: subject, detail: "APNs answered \(reason)",
                fix: "read Apple's meaning of \(reason) in docs/apns.md")
        }
    }

    private func fcm(_ items: inout [Item]) async {
        guard let settings = configuration.fcm else {
            items.append(
                Item(
                    status: .warning, subject: "fcm",
                    detail: "no FCM service account: Android phones ring only with the app open",
                    fix: "set --fcm-service-account to the Firebase project's service-account JSON"))
            return
        }
        do {
            let client = try RingerServer.fcmClient(settings)
            defer { client.shutdown() }
            await probe(client, into: &items)
        } catch {
            items.append(
                Item(
                    status: .failed, subject: "fcm", detail: "\(error)",
                    fix: "fix --fcm-service-account (the JSON file from the Firebase console)"))
        }
    }

    /// Asks Google for each service account's grant.
    private func probe(_ client: FCMClient, into items: inout [Item]) async {
        for check in await client.verifyCredentials() {
            items.append(
                Item(
                    status: check.isGranted ? .ok : .failed, subject: "fcm \(check.projectID)",
                    detail: check.isGranted ? "grant accepted (\(check.clientEmail))" : check.description,
                    fix: check.isGranted
                        ? nil
                        : check.isRetryable
                            ? "check that the server reaches Google's token endpoint (oauth2.googleapis.com:443)"
                            : "make a new key for the service account in the Firebase console, or check the clock"))
        }
    }

    /// Each push provider added through the API (decision 0009 §4), checked as the flags' credentials are.
    private func providers(
        _ items: inout [Item], store: (any RingerStore)?, clocks: inout [(source: String, offset: TimeInterval)]
    ) async {
        guard let store, let providers = try? await store.pushProviders(), !providers.isEmpty else { return }
        let secrets = configuration.secretsKeys.isEmpty ? nil : try? SecretBox(keys: configuration.secretsKeys)
        let hosts = PushProviderRegistry.Hosts(configuration: configuration)
        for provider in providers {
            let label = "provider \(provider.info.name)"
            do {
                switch try PushProviderRegistry.makeClient(provider, secrets: secrets, hosts: hosts) {
                case .apns(let client):
                    defer { client.shutdown() }
                    await probe(client, label: "\(label) apns", into: &items, clocks: &clocks)
                case .fcm(let client):
                    defer { client.shutdown() }
                    await probe(client, into: &items)
                }
            } catch {
                items.append(
                    Item(
                        status: .failed, subject: label, detail: "cannot be used here: \(error)",
                        fix: "start with the --secrets-key its credentials were sealed with, or replace them (PUT)"))
            }
        }
    }

    /// The certificate files the server trusts: expired, or within 30 days of it. A bundle of several is judged by
    /// the certificate that lasts longest (one root of a system bundle expiring breaks nothing that another signs).
    private func certificates(_ items: inout [Item], now: Date) {
        let files = [("--apns-ca-file", configuration.apns?.caFile), ("--fcm-ca-file", configuration.fcm?.caFile)]
        for case (let flag, let path?) in files {
            let dates = X509Expiry.notAfter(ofPEMFile: path)
            guard let latest = dates.max() else {
                items.append(
                    Item(
                        status: .failed, subject: flag, detail: "\(path) holds no certificate that can be read",
                        fix: "give a PEM file of CA certificates"))
                continue
            }
            let days = Int((latest.timeIntervalSince(now) / 86_400).rounded(.down))
            let which = dates.count == 1 ? "its certificate" : "the last of its \(dates.count) certificates"
            items.append(
                Item(
                    status: latest <= now ? .failed : days < 30 ? .warning : .ok, subject: flag,
                    detail: latest <= now
                        ? "\(path): \(which) expired \(-days) days ago" : "\(path): \(which) expires in \(days) days",
                    fix: days < 30 ? "replace the expiring certificate" : nil))
        }
    }

    /// Every stored webhook secret opens with the secrets keys given.
    private func secrets(_ items: inout [Item], store: (any RingerStore)?) async {
        guard let store, let endpoints = try? await store.webhookEndpoints(), !endpoints.isEmpty else { return }
        guard !configuration.secretsKeys.isEmpty, let box = try? SecretBox(keys: configuration.secretsKeys) else {
            items.append(
                Item(
                    status: .failed, subject: "secrets key",
                    detail: "\(endpoints.count) webhook endpoints, and no --secrets-key to sign their deliveries",
                    fix: "start with the --secrets-key their secrets were sealed with"))
            return
        }
        var current = 0
        var previous = 0
        for endpoint in endpoints {
            let context = WebhookEndpoints.sealingContext(endpoint.info.endpointID)
            if (try? box.open(endpoint.sealedSecret, context: context)) == nil { current += 1 }
            // A rotated-out secret signs only until it expires, and is skipped when it does not open.
            if let sealed = endpoint.sealedPreviousSecret, let expires = endpoint.info.previousSecretExpiresAt,
                expires > Date(), (try? box.open(sealed, context: context)) == nil
            {
                previous += 1
            }
        }
        if current > 0 {
            items.append(
                Item(
                    status: .failed, subject: "secrets key",
                    detail:
                        "webhook secrets that do not open: \(current); their deliveries wait for a server that can sign",
                    fix: "add the --secrets-key they were sealed with (after the current one), or rotate those secrets")
            )
        } else if previous > 0 {
            items.append(
                Item(
                    status: .warning, subject: "secrets key",
                    detail: "\(previous) rotated-out webhook secrets do not open: only the new ones sign",
                    fix:
                        "receivers still verifying with the old secret fail until they switch; keep the old key to avoid it"
                ))
        } else {
            items.append(Item(status: .ok, subject: "secrets key", detail: "every webhook secret opens"))
        }
    }

    private func outbox(_ items: inout [Item], store: (any RingerStore)?, now: Date) async {
        guard let store, let oldest = try? await store.oldestPendingWebhookEvent() else { return }
        let minutes = Int(now.timeIntervalSince(oldest) / 60)
        guard minutes >= 10 else { return }
        items.append(
            Item(
                status: .warning, subject: "webhooks",
                detail: "the oldest undelivered event is \(minutes) minutes old",
                fix: "GET /v1/webhooks/{id}/deliveries?state=pending shows which receiver is failing and why"))
    }

    private func clock(_ clocks: [(source: String, offset: TimeInterval)]) -> Item {
        guard let worst = clocks.max(by: { abs($0.offset) < abs($1.offset) }) else {
            return Item(
                status: .warning, subject: "clock", detail: "no reference answered (APNs, Redis)",
                fix: "keep the clock synchronised with NTP: ring deadlines are wall-clock times")
        }
        let text = String(format: "%.1f", abs(worst.offset))
        let side = worst.offset >= 0 ? "ahead of" : "behind"
        let status: Item.Status =
            abs(worst.offset) >= Self.clockFailure ? .failed : abs(worst.offset) >= Self.clockWarning ? .warning : .ok
        return Item(
            status: status, subject: "clock", detail: "\(text) s \(side) \(worst.source)",
            fix: status == .ok ? nil : "synchronise the clock with NTP: ring deadlines are wall-clock times")
    }
}
