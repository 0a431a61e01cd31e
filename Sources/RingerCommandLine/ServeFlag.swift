import Foundation
public import RingerServer

/// One flag of `ringer serve`, declared once: the parser reads and checks it from here (``ServeFlags``), and the
/// usage text (``usage``) and the configuration reference, docs/configuration.md (``markdownReference``), are
/// written from the same table, so none of them can drift from the others.
public struct ServeFlag: Sendable {
    /// What a flag takes and, for numbers, the range the parser holds it to.
    public enum Value: Sendable {
        /// Free text, shown as `placeholder` (`HOST:PORT`, `FILE`, `URL`).
        case text(String)
        /// Text never echoed in an error or a log (keys, secrets, passwords).
        case secret(String)
        /// Seconds, fractions allowed, within `range`; above the lower bound only, when `lowerExcluded`.
        case seconds(ClosedRange<Double>, lowerExcluded: Bool = false)
        /// Whole seconds within `range`.
        case wholeSeconds(ClosedRange<Int>)
        /// A whole number of `unit` within `range`; `zero` says what 0 means where 0 is a special value.
        case count(ClosedRange<Int>, unit: String, zero: String? = nil)
    }

    /// The reference's sections, in order.
    public enum Section: String, CaseIterable, Sendable {
        case server = "Listening and credentials"
        case database = "Database"
        case cluster = "Cluster"
        case apns = "APNs"
        case fcm = "FCM"
        case calls = "Calls"
        case connections = "Connections and requests"
        case rateLimits = "Rate limits"
        case media = "Media"
        case backend = "The app's backend"
    }

    /// The name without dashes, e.g. `ring-timeout`.
    public let name: String
    /// What it takes.
    public let value: Value
    /// The reference's section.
    public let section: Section
    /// The value the server uses when the flag is not given, as text (nil: none; the flag is optional or required).
    public let defaultValue: String?
    /// Whether the server refuses to start without it.
    public let isRequired: Bool
    /// Whether it may be given several times (its environment variable then takes values separated by commas).
    public let isRepeatable: Bool
    /// What it does, one or two sentences.
    public let help: String

    /// - Parameters: see the properties; `defaultValue` nil, `isRequired` and `isRepeatable` false by default.
    public init(
        _ name: String, _ value: Value, _ section: Section, default defaultValue: String? = nil,
        required isRequired: Bool = false, repeatable isRepeatable: Bool = false, _ help: String
    ) {
        self.name = name
        self.value = value
        self.section = section
        self.defaultValue = defaultValue
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
        self.help = help
    }

    /// `--name`.
    public var flag: String { "--" + name }

    /// The environment variable that stands for the flag: `RINGER_` and the name in capitals, dashes as underscores
    /// (``CommandLineOptions/variable(of:)``).
    public var environmentVariable: String { CommandLineOptions.variable(of: name) }

    /// What the flag takes in words, as errors and the reference say it: "seconds between 0 and 600".
    public var takes: String {
        switch value {
        case .text(let placeholder), .secret(let placeholder): return placeholder
        case .seconds(let range, _):
            return "seconds between \(Self.number(range.lowerBound)) and \(Self.number(range.upperBound))"
        case .wholeSeconds(let range): return "whole seconds between \(range.lowerBound) and \(range.upperBound)"
        case .count(let range, let unit, let zero):
            if let zero, range.lowerBound == 0 {
                return "a whole number of \(unit) from 0 (\(zero)) to \(range.upperBound)"
            }
            return "a whole number of \(unit) between \(range.lowerBound) and \(range.upperBound)"
        }
    }

    /// `600.0` as "600", `0.1` as "0.1".
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension ServeFlag {
    /// Every flag of `ringer serve`, in the order the reference lists them.
    public static let all: [ServeFlag] = {
        let defaults = ServerConfiguration()
        let limits = defaults.rateLimits
        var flags: [ServeFlag] = [
            ServeFlag(
                "listen", .text("HOST:PORT"), .server, default: "\(defaults.host):\(defaults.port)",
                "The address the HTTP API and the event-stream WebSocket listen on."),
            ServeFlag(
                "admin-key", .secret("KEY"), .server, required: true,
                "The operator's key: makes and revokes API keys (`/v1/api-keys`), and holds every API key scope (`POST /v1/tokens`, docs/backend.md)."
            ),
            ServeFlag(
                "metrics-token", .secret("TOKEN"), .server,
                "A bearer token (at least 16 characters) for `GET /metrics` alone, for the Prometheus scraper; the "
                    + "admin key is taken too (docs/operations.md)."),
            ServeFlag(
                "user-token-secret", .secret("SECRET"), .server, required: true,
                "The HS256 secret of the user tokens the server mints (at least 32 bytes)."),
            ServeFlag(
                "user-token-public-key", .text("KID.pem"), .server, repeatable: true,
                "A public key (ES256 or RS256) of the app backend, for user tokens it signs itself; the file's name "
                    + "without `.pem` is the token's `kid`. Repeat it to rotate keys."),
            ServeFlag(
                "trusted-proxy", .text("CIDR"), .server, repeatable: true,
                "A load balancer's or reverse proxy's addresses: the client's address is then the right-most "
                    + "`X-Forwarded-For` address outside every such range (docs/security.md)."),
            ServeFlag(
                "database", .text("FILE|postgres://URL"), .database, default: defaults.databasePath,
                "An SQLite file, or a PostgreSQL URL for several servers on one database (give the password in "
                    + "`RINGER_DATABASE` rather than on the command line)."),
            ServeFlag(
                "database-pool-size", .count(1...200, unit: "connections"), .database,
                default: "\(defaults.databasePoolSize)", "PostgreSQL connections per server."),
            ServeFlag(
                "database-timeout", .seconds(0.1...600), .database, default: ServeFlag.number(defaults.databaseTimeout),
                "How long each PostgreSQL operation may take, waits included; past it the request is answered 503 "
                    + "`unavailable`."),
            ServeFlag(
                "redis", .text("redis://URL"), .cluster,
                "The cluster's Redis: events, presence and signs of life between servers (docs/operations.md)."),
            ServeFlag(
                "redis-prefix", .text("NAME"), .cluster, default: defaults.redisPrefix,
                "The prefix of the cluster's Redis keys and channels; clusters sharing one Redis each need their own "
                    + "(1 to 64 letters, digits, `.`, `_` or `-`)."),
            ServeFlag(
                "node-id", .text("NAME"), .cluster, default: "host name and process id",
                "This server in the cluster, as `/healthz` and the logs name it (an identifier: 1 to 128 letters, digits, "
                    + "`.`, `_`, `:`, `@` or `-`)."),
            ServeFlag(
                "apns-key-file", .text("AuthKey.p8"), .apns,
                "APNs token authentication: the `.p8` signing key; with `--apns-key-id` and `--apns-team-id`."),
            ServeFlag("apns-key-id", .text("ID"), .apns, "The signing key's id (10 characters)."),
            ServeFlag("apns-team-id", .text("TEAM"), .apns, "The Apple developer team's id."),
            ServeFlag(
                "apns-cert-file", .text("app.p12|cert.pem"), .apns,
                "APNs certificate authentication instead of a key: the app's push certificate (docs/apns.md)."),
            ServeFlag(
                "apns-cert-key-file", .text("key.pem"), .apns,
                "The certificate's private key, when the certificate file is a PEM without it."),
            ServeFlag(
                "apns-cert-password", .secret("PASSWORD"), .apns,
                "The `.p12` file's password; the environment variable is safer than the flag, which `ps` shows."),
            ServeFlag(
                "apns-host", .text("HOST[:PORT]"), .apns,
                "One APNs host for both environments (the APNs sandbox of `ringer-lab sandbox`)."),
            ServeFlag(
                "apns-sandbox-host", .text("HOST[:PORT]"), .apns, default: "api.sandbox.push.apple.com",
                "The host of development tokens."),
            ServeFlag(
                "apns-production-host", .text("HOST[:PORT]"), .apns, default: "api.push.apple.com",
                "The host of production tokens."),
            ServeFlag(
                "apns-ca-file", .text("ca.pem"), .apns,
                "The certificate authority to trust for the APNs hosts instead of the system's."),
            ServeFlag(
                "fcm-service-account", .text("firebase.json"), .fcm, repeatable: true,
                "A Firebase service account (one per Firebase project; the first is the default), checked at start "
                    + "with one grant (docs/fcm.md)."),
            ServeFlag(
                "fcm-host", .text("HOST[:PORT]"), .fcm, default: "fcm.googleapis.com", "The FCM host."),
            ServeFlag(
                "fcm-ca-file", .text("ca.pem"), .fcm,
                "The certificate authority to trust for the FCM host and the accounts' token URI."),
            ServeFlag(
                "ring-timeout", .seconds(0...600, lowerExcluded: true), .calls,
                default: ServeFlag.number(defaults.ringTimeout), "How long a call rings before it ends `unanswered`."),
            ServeFlag(
                "max-callees-per-call", .count(1...100, unit: "callees"), .calls,
                default: "\(defaults.maxCalleesPerCall)",
                "The most people one call rings, those rung into it later included; a longer list is refused with 422 "
                    + "`too-many-callees`. Each callee counts as a call against `--rate-limit-calls-per-minute`: a "
                    + "value above that limit is refused, and the default follows a lower one (docs/call-lifecycle.md)."
            ),
            ServeFlag(
                "call-waiting", .text("off|on"), .calls, default: defaults.callWaiting ? "on" : "off",
                "`on`: a callee already in an answered call is rung anyway, the call marked `waiting` (their phone "
                    + "offers Hold & Accept); `off`: the call is `busy` for them. A call's `call_waiting` overrides it "
                    + "(docs/call-lifecycle.md)."),
            ServeFlag(
                "call-idle-timeout", .seconds(10...3600), .calls, default: ServeFlag.number(defaults.callIdleTimeout),
                "An accepted call whose parties' apps have no event socket open and sent no keepalive or action for "
                    + "this long ends `connection_lost` (docs/call-lifecycle.md)."),
            ServeFlag(
                "max-call-duration", .seconds(60...604_800), .calls,
                default: ServeFlag.number(defaults.maxCallDuration),
                "An accepted call ends `max_duration` this long after the answer."),
            ServeFlag(
                "retention-days", .count(0...36_500, unit: "days", zero: "keep forever"), .calls,
                default: defaults.retentionDays.map(String.init) ?? "0",
                "Ended calls placed, and events appended, longer ago than this are deleted with the calls' push "
                    + "outcomes (docs/operations.md)."),
            ServeFlag(
                "max-sockets-per-user", .count(1...1000, unit: "sockets"), .connections,
                default: "\(defaults.maxSocketsPerUser)",
                "Event sockets one user may hold; one more is refused with 429 `too-many-sockets`, while a device's "
                    + "new socket replaces its open one (closed with 4001)."),
            ServeFlag(
                "request-deadline", .wholeSeconds(1...3600), .connections,
                default: "\(defaults.requestDeadlineSeconds)",
                "How long a request's body may take after its head; slower is answered 408 `request-timeout` and "
                    + "closed."),
            ServeFlag(
                "max-connections-per-address", .count(0...1_000_000, unit: "connections", zero: "no cap"),
                .connections, default: defaults.maxConnectionsPerAddress.map(String.init) ?? "0",
                "TCP connections one client address may hold (an IPv6 /64 counts as one); more are closed at once. "
                    + "Loopback peers, such as a reverse proxy on the host, are not counted."),
            ServeFlag(
                "max-connections", .count(0...10_000_000, unit: "connections", zero: "from the open-file limit"),
                .connections, default: "0",
                "TCP connections held at once; 0 is the open-file limit less a reserve of 1/32 of it (48 to 1024). "
                    + "At it, the connection slowest to send its request or read its answer makes room."),
        ]
        for limit in RateLimitSettings.Limit.allCases {
            flags.append(
                ServeFlag(
                    limit.rawValue, .count(0...100_000, unit: "requests", zero: "off"), .rateLimits,
                    default: "\(limits[keyPath: limit.setting])", limit.help))
        }
        flags += [
            ServeFlag(
                "media-url", .text("URL"), .media, default: defaults.media.url,
                "The LiveKit-compatible media server the tokens are for."),
            ServeFlag(
                "media-api-key", .secret("KEY"), .media, default: defaults.media.apiKey,
                "The media server's API key; with the default pair (LiveKit's published development key) the server "
                    + "warns at start and `/healthz` lists `media-development-key`."),
            ServeFlag(
                "media-api-secret", .secret("SECRET"), .media, default: defaults.media.apiSecret,
                "The media server's API secret."),
            ServeFlag(
                "secrets-key", .secret("BASE64"), .backend, repeatable: true,
                "32 bytes in base64 (`openssl rand -base64 32`) that seal the secrets the database keeps: webhook "
                    + "signing secrets and push providers' keys (docs/backend.md, docs/operations.md). The first seals, "
                    + "every one opens: repeat it to rotate. Without one, neither can be added."),
            ServeFlag(
                "webhook-allow-http", .text("off|on"), .backend, default: defaults.webhookAllowHTTP ? "on" : "off",
                "`on`: a webhook endpoint may be a plain `http://` URL; `off`: `https://` only."),
            ServeFlag(
                "webhook-allow-private-addresses", .text("off|on"), .backend,
                default: defaults.webhookAllowPrivateAddresses ? "on" : "off",
                "`on`: webhooks may be delivered to private, loopback and link-local addresses (receivers inside the "
                    + "operator's network); `off`: an endpoint naming one, or whose name resolves to one, is refused."),
            ServeFlag(
                "webhook-timeout", .seconds(1...60), .backend, default: ServeFlag.number(defaults.webhookTimeout),
                "How long one webhook delivery may take, connection included; past it the attempt failed and is "
                    + "retried."),
        ]
        return flags
    }()

    /// The flag named `name`; a name not in ``all`` is a programming error.
    static func named(_ name: String) -> ServeFlag {
        guard let flag = all.first(where: { $0.name == name }) else {
            preconditionFailure("--\(name) is not in ServeFlag.all")
        }
        return flag
    }

    /// `ringer serve`'s part of `ringer help`, from the table: one line a flag with what it takes and its default.
    public static var usage: String {
        Section.allCases.map { section in
            let lines = all.filter { $0.section == section }.map { flag -> String in
                var line = "    \(flag.flag) \(flag.placeholder)"
                switch flag.value {
                case .text, .secret: break
                case .seconds, .wholeSeconds, .count: line += "  \(flag.takes)"
                }
                if let value = flag.defaultValue { line += "  (default \(value))" }
                if flag.isRequired { line += "  (required)" }
                if flag.isRepeatable { line += "  (repeatable)" }
                return line
            }
            return "  \(section.rawValue):\n" + lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The placeholder the usage shows after the flag: `SECONDS`, `N`, or the text's own.
    var placeholder: String {
        switch value {
        case .text(let text), .secret(let text): return text
        case .seconds, .wholeSeconds: return "SECONDS"
        case .count: return "N"
        }
    }

    /// docs/configuration.md, from the table (`ringer-lab config-reference` prints it; a test holds the file equal).
    public static var markdownReference: String {
        var text = """
            # Configuration reference

            Every flag of `ringer serve`, generated from its flag table (`Sources/RingerCommandLine/ServeFlag.swift`)
            by `ringer-lab config-reference > docs/configuration.md`; `ConfigurationReferenceTests` fails when this
            file and the table differ. Every flag is also an environment variable (`--admin-key` is
            `RINGER_ADMIN_KEY`); a flag given on the command line wins over its variable, and a repeatable flag's
            variable takes several values separated by commas. A value out of range stops the server at start with a
            message naming the flag (never echoing a secret).

            """
        for section in Section.allCases {
            text +=
                "\n## \(section.rawValue)\n\n| flag | variable | takes | default | what it does |\n| --- | --- | --- | --- | --- |\n"
            for flag in all where flag.section == section {
                var takes = flag.takes
                if flag.isRepeatable { takes += ", repeatable" }
                let value = flag.isRequired ? "required" : flag.defaultValue.map { "`\($0)`" } ?? "none"
                let cells = [
                    "`\(flag.flag)`", "`\(flag.environmentVariable)`", takes, value, flag.help,
                ].map { $0.replacingOccurrences(of: "|", with: "\\|") }
                text += "| " + cells.joined(separator: " | ") + " |\n"
            }
        }
        return text
    }
}
