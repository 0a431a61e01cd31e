import Foundation
public import RingerServer

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

    /// `ringer serve`'s flag names, without dashes.
    public static let flagNames: Set<String> = Set(
        [
            "listen", "database", "database-pool-size", "database-timeout", "redis", "redis-prefix", "node-id",
            "admin-key", "user-token-secret", "user-token-public-key", "apns-key-file", "apns-key-id",
            "apns-team-id", "apns-cert-file", "apns-cert-key-file", "apns-cert-password",
            "apns-host", "apns-sandbox-host", "apns-production-host", "apns-ca-file",
            "ring-timeout", "call-idle-timeout", "max-call-duration", "max-sockets-per-user",
            "request-deadline",
            "max-connections-per-address", "max-connections", "retention-days", "media-url", "media-api-key",
            "media-api-secret", "fcm-service-account",
            "fcm-host", "fcm-ca-file", "trusted-proxy",
        ] + RateLimitSettings.Limit.allCases.map(\.rawValue))

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
            guard UserID.isValid(name) else {
                throw ConfigurationError("--node-id must be 1 to 64 letters, digits, '.', '_' or '-', got \(name)")
            }
            config.nodeID = name
        }
        if let text = options["database-pool-size"] {
            guard let count = Int(text), (1...200).contains(count) else {
                throw ConfigurationError("--database-pool-size must be a whole number between 1 and 200, got \(text)")
            }
            config.databasePoolSize = count
        }
        if let text = options["database-timeout"] {
            guard let seconds = TimeInterval(text), seconds >= 0.1, seconds <= 600 else {
                throw ConfigurationError("--database-timeout must be seconds between 0.1 and 600, got \(text)")
            }
            config.databaseTimeout = seconds
        }
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
        if let timeout = options["ring-timeout"] {
            guard let seconds = TimeInterval(timeout), seconds > 0, seconds <= 600 else {
                throw ConfigurationError("--ring-timeout must be seconds between 0 and 600, got \(timeout)")
            }
            config.ringTimeout = seconds
        }
        if let text = options["call-idle-timeout"] {
            guard let seconds = TimeInterval(text), seconds >= 10, seconds <= 3600 else {
                throw ConfigurationError("--call-idle-timeout must be seconds between 10 and 3600, got \(text)")
            }
            config.callIdleTimeout = seconds
        }
        if let text = options["max-call-duration"] {
            guard let seconds = TimeInterval(text), seconds >= 60, seconds <= 7 * 86400 else {
                throw ConfigurationError(
                    "--max-call-duration must be seconds between 60 and 604800 (7 days), got \(text)")
            }
            config.maxCallDuration = seconds
        }
        if let text = options["max-sockets-per-user"] {
            guard let count = Int(text), (1...1000).contains(count) else {
                throw ConfigurationError(
                    "--max-sockets-per-user must be a whole number between 1 and 1000, got \(text)")
            }
            config.maxSocketsPerUser = count
        }
        for limit in RateLimitSettings.Limit.allCases {
            let flag = limit.rawValue
            guard let text = options[flag] else { continue }
            guard let count = Int(text), (0...100_000).contains(count) else {
                throw ConfigurationError("--\(flag) must be a whole number from 0 (off) to 100000, got \(text)")
            }
            config.rateLimits[keyPath: limit.setting] = count
        }
        config.trustedProxies = try options.all("trusted-proxy").map(AddressRange.init)
        if let text = options["request-deadline"] {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw ConfigurationError("--request-deadline must be whole seconds between 1 and 3600, got \(text)")
            }
            config.requestDeadlineSeconds = seconds
        }
        if let text = options["max-connections-per-address"] {
            guard let count = Int(text), (0...1_000_000).contains(count) else {
                throw ConfigurationError(
                    "--max-connections-per-address must be a whole number between 0 (no cap) and 1000000, got \(text)")
            }
            config.maxConnectionsPerAddress = count == 0 ? nil : count
        }
        if let text = options["retention-days"] {
            guard let days = Int(text), (0...36_500).contains(days) else {
                throw ConfigurationError(
                    "--retention-days must be a whole number of days from 0 (keep forever) to 36500, got \(text)")
            }
            config.retentionDays = days == 0 ? nil : days
        }
        if let text = options["max-connections"] {
            guard let count = Int(text), (0...10_000_000).contains(count) else {
                throw ConfigurationError(
                    "--max-connections must be a whole number between 0 (from the open-file limit) and 10000000, got \(text)"
                )
            }
            config.maxConnections = count == 0 ? nil : count
        }
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

    /// `host[:port]` or a full URL -> `https://host[:port]`.
    private static func baseURL(_ text: String) throws -> String {
        let url = text.contains("://") ? text : "https://" + text
        guard let parsed = URL(string: url), parsed.host != nil else {
            throw ConfigurationError("not a host or URL: \(text)")
        }
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
