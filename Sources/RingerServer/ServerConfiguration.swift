public import Foundation

/// Everything `ringer serve` is configured with (API.md "Server flags"); each flag `--name value`
/// is also read from the environment variable `RINGER_NAME` (dashes become underscores).
public struct ServerConfiguration: Sendable {
    /// Address to listen on for the HTTP API and WebSocket.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (reported by ``RingerServer/start()``).
    public var port: Int = 8080
    /// SQLite database file.
    public var databasePath: String = "ringer.sqlite"
    /// Bearer key for admin routes (`POST /v1/tokens`). Required.
    public var adminKey: String = ""
    /// HS256 secret for user tokens. Required, at least 32 bytes.
    public var userTokenSecret: String = ""
    /// The app backend's ES256/RS256 public keys for user tokens it signs (`--user-token-public-key`, repeatable;
    /// each file's name without extension is its `kid`).
    public var userTokenPublicKeyFiles: [String] = []
    /// APNs authentication and hosts; nil disables VoIP pushes (calls then ring WebSockets only).
    public var apns: APNsSettings?
    /// FCM credentials and host; nil disables FCM messages (Android calls then ring WebSockets only).
    public var fcm: FCMSettings?
    /// Seconds a call rings before it ends `unanswered`.
    public var ringTimeout: TimeInterval = 45
    /// Seconds an accepted call may go without a sign of either party's app (an open event socket, a
    /// keepalive, a call action) before the server ends it `connection_lost` (`--call-idle-timeout`).
    public var callIdleTimeout: TimeInterval = 120
    /// Seconds after acceptance at which the server ends a call `max_duration` (`--max-call-duration`, 4 h).
    public var maxCallDuration: TimeInterval = 4 * 3600
    /// The LiveKit-compatible media server and the key pair that signs its access tokens.
    public var media = MediaSettings()
    /// Longest lifetime `POST /v1/tokens` grants, seconds.
    public var maxUserTokenTTL: Int = UserTokens.maximumLifetime
    /// Most `/v1/events` sockets one user may hold at once (`--max-sockets-per-user`, 1–1000); a new
    /// socket of a device that holds one replaces it and does not count twice.
    public var maxSocketsPerUser: Int = 10
    /// Requests per minute per caller, callee pair, user or address (`--rate-limit-*`); 0 switches one off.
    public var rateLimits = RateLimitSettings()
    /// Proxies (CIDR ranges or addresses, `--trusted-proxy`, repeatable) whose `X-Forwarded-For` names the
    /// client for per-address limits; none by default, so the socket's peer is the client.
    public var trustedProxies: [String] = []
    /// Seconds a request body may take to arrive after its head (`--request-deadline`, 1–3600); a slower one is
    /// answered 408 request-timeout and its connection closed, so a trickled body cannot hold a connection.
    public var requestDeadlineSeconds: Int = 30
    /// Most TCP connections one client address may hold (`--max-connections-per-address`, 0 for no cap);
    /// more are closed as soon as they are accepted. Loopback peers (a reverse proxy on the host) are not counted.
    public var maxConnectionsPerAddress: Int? = 1000

    /// APNs settings: how the server authenticates, and where it connects.
    public struct APNsSettings: Sendable {
        /// A provider-token signing key, or a client certificate (Apple offers both; a key serves every
        /// app of the team, a certificate one app).
        public enum Credentials: Sendable {
            /// `--apns-key-file` (`.p8`), `--apns-key-id` (10 characters), `--apns-team-id`.
            case signingKey(file: String, keyID: String, teamID: String)
            /// `--apns-cert-file` (`.p12` or PEM), `--apns-cert-key-file` (PEM key, when separate),
            /// `--apns-cert-password` (best given as `RINGER_APNS_CERT_PASSWORD`: flags show in `ps`).
            case certificate(file: String, keyFile: String?, password: String?)
        }

        /// How the server authenticates to APNs.
        public var credentials: Credentials
        /// Base URL for sandbox device tokens (default Apple's, or `--apns-host`).
        public var sandboxURL: String = "https://api.sandbox.push.apple.com"
        /// Base URL for production device tokens (default Apple's, or `--apns-host`).
        public var productionURL: String = "https://api.push.apple.com"
        /// Extra CA (PEM path) to trust, for a local sandbox.
        public var caFile: String?

        /// Creates token-authentication settings with Apple's hosts.
        public init(keyFile: String, keyID: String, teamID: String) {
            credentials = .signingKey(file: keyFile, keyID: keyID, teamID: teamID)
        }

        /// Creates settings with Apple's hosts.
        public init(credentials: Credentials) {
            self.credentials = credentials
        }
    }

    /// FCM HTTP v1 settings (API.md "Server flags"): which Firebase projects, and where to connect.
    public struct FCMSettings: Sendable {
        /// Service-account JSON files (`--fcm-service-account`, repeatable), one per Firebase project; the
        /// first is the default for devices that name no `fcm_project_id`.
        public var serviceAccountFiles: [String]
        /// Base URL of the FCM API (Google's, or `--fcm-host`).
        public var baseURL: String = "https://fcm.googleapis.com"
        /// Extra CA (PEM path) to trust for the FCM host and the token URI, for a local sandbox.
        public var caFile: String?

        /// Creates settings with Google's host.
        /// - Parameter serviceAccountFiles: at least one service-account file.
        public init(serviceAccountFiles: [String]) {
            self.serviceAccountFiles = serviceAccountFiles
        }
    }

    /// LiveKit-compatible media settings. The defaults match a LiveKit server in `--dev` mode.
    public struct MediaSettings: Sendable {
        /// URL apps connect to.
        public var url: String = "ws://127.0.0.1:7880"
        /// API key: the media token's `iss`.
        public var apiKey: String = "devkey"
        /// API secret that signs media tokens (HS256).
        public var apiSecret: String = "secret"
        /// Media token lifetime, seconds.
        public var tokenTTL: Int = 6 * 3600

        /// True while the key pair is LiveKit's published `--dev` pair (`devkey` / `secret`): anyone can then
        /// mint tokens for the media server, so the server says so at start and in `/healthz`.
        public var usesDevelopmentKey: Bool { apiKey == "devkey" && apiSecret == "secret" }

        /// Creates the LiveKit `--dev` defaults.
        public init() {}
    }

    /// Creates the defaults; ``adminKey`` and ``userTokenSecret`` must still be set.
    public init() {}

    /// Reads flags, falling back to `RINGER_*` environment variables.
    /// - Parameters:
    ///   - arguments: the arguments after `serve`, e.g. `["--listen", "127.0.0.1:8080"]`.
    ///   - environment: the process environment.
    /// - Returns: the configuration.
    /// - Throws: ``ConfigurationError`` naming the bad or missing setting (never echoing secret values).
    public static func parse(arguments: [String], environment: [String: String]) throws -> ServerConfiguration {
        let options = try CommandLineOptions(arguments: arguments, environment: environment, known: Set([
            "listen", "database", "admin-key", "user-token-secret", "user-token-public-key", "apns-key-file", "apns-key-id",
            "apns-team-id", "apns-cert-file", "apns-cert-key-file", "apns-cert-password",
            "apns-host", "apns-sandbox-host", "apns-production-host", "apns-ca-file",
            "ring-timeout", "call-idle-timeout", "max-call-duration", "max-sockets-per-user", "request-deadline",
            "max-connections-per-address", "media-url", "media-api-key", "media-api-secret", "fcm-service-account",
            "fcm-host", "fcm-ca-file", "trusted-proxy",
        ] + RateLimits.Limit.allCases.map(\.rawValue)))
        var config = ServerConfiguration()
        if let listen = options["listen"] {
            let parts = listen.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 2, let port = Int(parts.last!), (0...65535).contains(port) else {
                throw ConfigurationError("--listen must be host:port (an IPv6 host in brackets: [::]:8080), got \(listen)")
            }
            var host = parts.dropLast().joined(separator: ":")
            // RFC 3986 §3.2.2: an IPv6 host before a port is written in brackets, which getaddrinfo does not take.
            if host.hasPrefix("[") || host.hasSuffix("]") {
                guard host.count > 2, host.hasPrefix("["), host.hasSuffix("]") else {
                    throw ConfigurationError("--listen must be host:port (an IPv6 host in brackets: [::]:8080), got \(listen)")
                }
                host = String(host.dropFirst().dropLast())
            }
            config.host = host
            config.port = port
        }
        config.databasePath = options["database"] ?? config.databasePath
        guard let admin = options["admin-key"], !admin.isEmpty else {
            throw ConfigurationError("--admin-key (or RINGER_ADMIN_KEY) is required")
        }
        config.adminKey = admin
        guard let secret = options["user-token-secret"], secret.utf8.count >= 32 else {
            throw ConfigurationError("--user-token-secret (or RINGER_USER_TOKEN_SECRET) of at least 32 bytes is required")
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
                throw ConfigurationError("--max-call-duration must be seconds between 60 and 604800 (7 days), got \(text)")
            }
            config.maxCallDuration = seconds
        }
        if let text = options["max-sockets-per-user"] {
            guard let count = Int(text), (1...1000).contains(count) else {
                throw ConfigurationError("--max-sockets-per-user must be a whole number between 1 and 1000, got \(text)")
            }
            config.maxSocketsPerUser = count
        }
        for limit in RateLimits.Limit.allCases {
            let flag = limit.rawValue
            guard let text = options[flag] else { continue }
            guard let count = Int(text), (0...100_000).contains(count) else {
                throw ConfigurationError("--\(flag) must be a whole number from 0 (off) to 100000, got \(text)")
            }
            config.rateLimits[keyPath: limit.setting] = count
        }
        config.trustedProxies = options.all("trusted-proxy")
        for range in config.trustedProxies { _ = try AddressRange(range) }
        if let text = options["request-deadline"] {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw ConfigurationError("--request-deadline must be whole seconds between 1 and 3600, got \(text)")
            }
            config.requestDeadlineSeconds = seconds
        }
        if let text = options["max-connections-per-address"] {
            guard let count = Int(text), (0...1_000_000).contains(count) else {
                throw ConfigurationError("--max-connections-per-address must be a whole number between 0 (no cap) and 1000000, got \(text)")
            }
            config.maxConnectionsPerAddress = count == 0 ? nil : count
        }
        let keyFields = [options["apns-key-file"], options["apns-key-id"], options["apns-team-id"]]
        let certificateFields = [options["apns-cert-file"], options["apns-cert-key-file"], options["apns-cert-password"]]
        // The password alone does not choose certificate authentication: RINGER_APNS_CERT_PASSWORD may be left
        // in the environment from trying a certificate, and must not block a signing key.
        let usesKey = keyFields.contains { $0 != nil }
        let usesCertificate = certificateFields[0] != nil || certificateFields[1] != nil
            || (!usesKey && certificateFields[2] != nil)
        if usesKey && usesCertificate {
            throw ConfigurationError("give either --apns-key-file (token authentication) or --apns-cert-file (certificate), not both")
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
            throw ConfigurationError("--fcm-host and --fcm-ca-file need --fcm-service-account (or RINGER_FCM_SERVICE_ACCOUNT)")
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

/// A missing or invalid setting; the message names it but never shows a secret's value.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
