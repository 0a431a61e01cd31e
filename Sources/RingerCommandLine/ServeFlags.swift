import Foundation
public import RingerServer
import RingerWire

/// `ringer serve`'s flags (docs/configuration.md), each also the environment
/// variable `RINGER_NAME` (dashes become underscores), read into the server's typed configuration.
extension ServerConfiguration {
    /// Reads `ringer serve`'s flags, falling back to `RINGER_*` environment variables.
    /// - Parameters:
    ///   - arguments: the arguments after `serve`, e.g. `["--listen", "127.0.0.1:8080"]`.
    ///   - environment: the process environment.
    /// - Returns: the configuration.
    /// - Throws: ``ConfigurationError`` naming the bad or missing setting (never echoing secret values).
    public static func parse(arguments: [String], environment: [String: String]) throws -> ServerConfiguration {
        try parse(options: CommandLineOptions(arguments: arguments, environment: environment, known: flagNames))
    }

    /// `ringer serve`'s flag names, without dashes (``ServeFlag/all``).
    public static let flagNames: Set<String> = Set(ServeFlag.all.map(\.name))

    /// An `on`/`off` flag's value, nil when not given.
    /// - Throws: ``ConfigurationError`` for any other value.
    static func onOff(_ name: String, _ options: CommandLineOptions) throws -> Bool? {
        switch options[name] {
        case nil: return nil
        case "on": return true
        case "off": return false
        case let other?: throw ConfigurationError("--\(name) must be on or off, not \"\(other)\"")
        }
    }

    /// Reads `ringer serve`'s flags from options parsed already (a command that adds flags of its own parses them
    /// together, with ``flagNames`` among its known names).
    /// - Throws: ``ConfigurationError`` naming the bad or missing setting (never echoing secret values).
    public static func parse(options: CommandLineOptions) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        if let text = options["listen"] {
            let listen = try HostPort(text, flag: "--listen")
            config.host = listen.host
            config.port = listen.port
        }
        config.databasePath = options["database"] ?? config.databasePath
        config.redisURL = options["redis"]
        if let prefix = options["redis-prefix"] {
            guard ServerConfiguration.isValidRedisPrefix(prefix) else {
                throw ConfigurationError(
                    "--redis-prefix must be 1 to 64 letters, digits, '.', '_' or '-', got \(prefix)")
            }
            config.redisPrefix = prefix
        }
        if let name = options["node-id"] {
            guard Identifier.isValid(name) else {
                throw ConfigurationError("--node-id must be \(Identifier.rule), got \(name)")
            }
            config.nodeID = name
        }
        if let count = try wholeNumber("database-pool-size", options) { config.databasePoolSize = count }
        if let seconds = try seconds("database-timeout", options) { config.databaseTimeout = seconds }
        guard let admin = options["admin-key"], !admin.isEmpty else {
            throw ConfigurationError("--admin-key (or RINGER_ADMIN_KEY) is required")
        }
        config.adminKey = admin
        guard let secret = options["user-token-secret"], secret.utf8.count >= 32 else {
            throw ConfigurationError(
                "--user-token-secret (or RINGER_USER_TOKEN_SECRET) of at least 32 bytes is required")
        }
        config.userTokenSecret = secret
        config.userTokenPublicKeyFiles = options.all("user-token-public-key")
        if let seconds = try seconds("ring-timeout", options) { config.ringTimeout = seconds }
        if let seconds = try seconds("call-idle-timeout", options) { config.callIdleTimeout = seconds }
        if let seconds = try seconds("max-call-duration", options) { config.maxCallDuration = seconds }
        if let count = try wholeNumber("max-sockets-per-user", options) { config.maxSocketsPerUser = count }
        for limit in RateLimitSettings.Limit.allCases {
            if let count = try wholeNumber(limit.rawValue, options) {
                config.rateLimits[keyPath: limit.setting] = count
            }
        }
        // Each callee rung spends one of the caller's calls: a group larger than the minute's budget never rings.
        // Asked for, that is refused; left at its default, the limit follows a lower calls-per-minute.
        let callsPerMinute = config.rateLimits.callsPerCallerPerMinute
        if let count = try wholeNumber("max-callees-per-call", options) {
            if callsPerMinute > 0, count > callsPerMinute {
                throw ConfigurationError(
                    "--max-callees-per-call (\(count)) is above --rate-limit-calls-per-minute (\(callsPerMinute)), "
                        + "so a call that large could never ring; lower one or raise the other")
            }
            config.maxCalleesPerCall = count
        } else if callsPerMinute > 0 {
            config.maxCalleesPerCall = min(config.maxCalleesPerCall, callsPerMinute)
        }
        switch options["call-waiting"] {
        case nil: break
        case "on": config.callWaiting = true
        case "off": config.callWaiting = false
        case let other?: throw ConfigurationError("--call-waiting must be on or off, not \"\(other)\"")
        }
        config.secretsKeys = try options.all("secrets-key").map { text in
            guard let key = Data(base64Encoded: text), key.count == 32 else {
                throw ConfigurationError(
                    "--secrets-key (or RINGER_SECRETS_KEY) must be 32 bytes in base64 (openssl rand -base64 32)")
            }
            return Array(key)
        }
        config.webhookAllowHTTP = try onOff("webhook-allow-http", options) ?? config.webhookAllowHTTP
        config.webhookAllowPrivateAddresses =
            try onOff("webhook-allow-private-addresses", options) ?? config.webhookAllowPrivateAddresses
        if let seconds = try seconds("webhook-timeout", options) { config.webhookTimeout = seconds }
        if let token = options["metrics-token"] {
            guard token.utf8.count >= 16 else {
                throw ConfigurationError("--metrics-token (or RINGER_METRICS_TOKEN) must be at least 16 characters")
            }
            config.metricsToken = token
        }
        config.trustedProxies = try options.all("trusted-proxy").map(AddressRange.init)
        if let seconds = try wholeNumber("request-deadline", options) { config.requestDeadlineSeconds = seconds }
        if let count = try wholeNumber("max-connections-per-address", options) {
            config.maxConnectionsPerAddress = count == 0 ? nil : count
        }
        if let days = try wholeNumber("retention-days", options) { config.retentionDays = days == 0 ? nil : days }
        if let count = try wholeNumber("max-connections", options) { config.maxConnections = count == 0 ? nil : count }
        let keyFields = [options["apns-key-file"], options["apns-key-id"], options["apns-team-id"]]
        let certificateFields = [
            options["apns-cert-file"], options["apns-cert-key-file"], options["apns-cert-password"],
        ]
        // The password alone does not choose certificate authentication: RINGER_APNS_CERT_PASSWORD may be left
        // in the environment from trying a certificate, and must not block a signing key.
        let usesKey = keyFields.contains { $0 != nil }
        let usesCertificate =
            certificateFields[0] != nil || certificateFields[1] != nil
            || (!usesKey && certificateFields[2] != nil)
        if usesKey && usesCertificate {
            throw ConfigurationError(
                "give either --apns-key-file (token authentication) or --apns-cert-file (certificate), not both")
        }
        if usesKey || usesCertificate {
            let credentials: APNsSettings.Credentials
            if usesKey {
                guard let file = keyFields[0], let keyID = keyFields[1], let teamID = keyFields[2] else {
                    throw ConfigurationError("--apns-key-file, --apns-key-id and --apns-team-id go together")
                }
                credentials = .signingKey(file: file, keyID: keyID, teamID: teamID)
            } else {
                guard let file = certificateFields[0] else {
                    throw ConfigurationError("--apns-cert-key-file and --apns-cert-password need --apns-cert-file")
                }
                credentials = .certificate(file: file, keyFile: certificateFields[1], password: certificateFields[2])
            }
            var apns = APNsSettings(credentials: credentials)
            if let host = options["apns-host"] {
                apns.sandboxURL = try baseURL(host)
                apns.productionURL = apns.sandboxURL
            }
            if let host = options["apns-sandbox-host"] { apns.sandboxURL = try baseURL(host) }
            if let host = options["apns-production-host"] { apns.productionURL = try baseURL(host) }
            apns.caFile = options["apns-ca-file"]
            config.apns = apns
        }
        let serviceAccounts = options.all("fcm-service-account")
        if !serviceAccounts.isEmpty {
            var fcm = FCMSettings(serviceAccountFiles: serviceAccounts)
            if let host = options["fcm-host"] { fcm.baseURL = try baseURL(host) }
            fcm.caFile = options["fcm-ca-file"]
            config.fcm = fcm
        } else if options["fcm-host"] != nil || options["fcm-ca-file"] != nil {
            throw ConfigurationError(
                "--fcm-host and --fcm-ca-file need --fcm-service-account (or RINGER_FCM_SERVICE_ACCOUNT)")
        }
        config.media.url = options["media-url"] ?? config.media.url
        config.media.apiKey = options["media-api-key"] ?? config.media.apiKey
        config.media.apiSecret = options["media-api-secret"] ?? config.media.apiSecret
        return config
    }

    /// The value of a numeric flag of ``ServeFlag/all`` taking seconds, held to the table's range.
    /// - Returns: nil when neither the flag nor its variable is set.
    /// - Throws: ``ConfigurationError`` "--name must be seconds between A and B, got X".
    private static func seconds(_ name: String, _ options: CommandLineOptions) throws -> TimeInterval? {
        let flag = ServeFlag.named(name)
        guard let text = options[name] else { return nil }
        guard case .seconds(let range, let lowerExcluded) = flag.value, let value = TimeInterval(text),
            range.contains(value), !(lowerExcluded && value == range.lowerBound)
        else {
            throw ConfigurationError("\(flag.flag) must be \(flag.takes), got \(text)")
        }
        return value
    }

    /// The value of a flag of ``ServeFlag/all`` taking a whole number (or whole seconds), held to the table's range.
    /// - Returns: nil when neither the flag nor its variable is set.
    /// - Throws: ``ConfigurationError`` "--name must be a whole number of … between A and B, got X".
    private static func wholeNumber(_ name: String, _ options: CommandLineOptions) throws -> Int? {
        let flag = ServeFlag.named(name)
        guard let text = options[name] else { return nil }
        let range: ClosedRange<Int>
        switch flag.value {
        case .count(let bounds, _, _), .wholeSeconds(let bounds): range = bounds
        default: preconditionFailure("\(flag.flag) takes no whole number")
        }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(flag.flag) must be \(flag.takes), got \(text)")
        }
        return value
    }

    /// `host[:port]` or a full URL -> `https://host[:port]`.
    private static func baseURL(_ text: String) throws -> String {
        let url = text.contains("://") ? text : "https://" + text
        guard let parsed = URL(string: url), parsed.host != nil else {
            throw ConfigurationError("not a host or URL: \(text)")
        }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
