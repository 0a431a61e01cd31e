public import Foundation
import RingerStore

/// Everything the server is configured with, as typed values. `ringer serve` fills it from its flags and
/// `RINGER_*` environment variables (Sources/RingerCommandLine/ServeFlags.swift; docs/configuration.md lists
/// the flags); tests and `ringer-lab demo` fill it directly.
public struct ServerConfiguration: Sendable {
    /// Address to listen on for the HTTP API and WebSocket.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (reported by ``RingerServer/start()``).
    public var port: Int = 8080
    /// The database (`--database`, `RINGER_DATABASE`): an SQLite file for one server, or a `postgres://` URL
    /// (libpq's form, `postgres://user:password@host:5432/ringer?sslmode=require`) that any number of servers share.
    public var databasePath: String = "ringer.sqlite"
    /// Most PostgreSQL connections this server holds (`--database-pool-size`, 1–200; each is a backend process
    /// on the database server). Ignored for SQLite.
    public var databasePoolSize: Int = 8
    /// Seconds each PostgreSQL operation may take (`--database-timeout`, 0.1–600): waiting for a pooled
    /// connection, connecting, and every answer; past it the request answers 503 `unavailable` and `/healthz`
    /// fails. Ignored for SQLite.
    public var databaseTimeout: TimeInterval = 2

    /// The cluster's Redis (`--redis`, `RINGER_REDIS`, `redis://[:password@]host:6379[/db]`): servers sharing a
    /// PostgreSQL database tell each other their events and sockets through it. nil for a server on its own.
    public var redisURL: String?
    /// The prefix of every Redis key and channel this cluster uses (`--redis-prefix`, `RINGER_REDIS_PREFIX`):
    /// `<prefix>:events`, `<prefix>:nodes`, `<prefix>:presence:<user>`. Every node of one cluster uses the same;
    /// two clusters on one Redis use different ones (pub/sub ignores the database number). `ringer` by default.
    public var redisPrefix = "ringer"
    /// This server's name in its cluster (`--node-id`, `RINGER_NODE_ID`), in logs and `/healthz`; the host name
    /// and process id by default.
    public var nodeID: String = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"

    /// Whether `prefix` may prefix the cluster's Redis names: 1 to 64 letters, digits, `.`, `_` or `-`. No `:`, the
    /// separator, so no two prefixes name one key (`a` and `a:presence` would share `a:presence:nodes`).
    public static func isValidRedisPrefix(_ prefix: String) -> Bool {
        (1...64).contains(prefix.utf8.count)
            && prefix.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }

    /// ``databasePath`` as it may be shown: a URL's password replaced by `***`.
    public var databaseDescription: String {
        PostgresTarget(url: databasePath)?.description ?? databasePath
    }
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
    /// The most callees one call rings, those rung into it later included (`--max-callees-per-call`, 1–100): each
    /// leg rings all its callee's devices and each change tells every party, so a call's cost grows with its square.
    public var maxCalleesPerCall: Int = Self.defaultMaxCalleesPerCall
    /// 16: a family, a team or a desk, with room.
    public static let defaultMaxCalleesPerCall = 16
    /// Whether a callee already in an answered call is rung anyway, as a waiting call, rather than the call ending
    /// `busy` for them (`--call-waiting`; a call's `call_waiting` overrides it). Off by default: apps expect `busy`
    /// until their UI handles two calls (docs/decisions/0008 §3).
    public var callWaiting = false
    /// The keys that seal the secrets the database keeps, webhook signing secrets and push providers' private keys
    /// (`--secrets-key`, repeatable, 32 bytes each): the first seals, every one opens what it sealed, so a key is
    /// rotated by putting the new one first and keeping the old one until everything was sealed again. Empty: no
    /// secret can be kept, so webhook endpoints cannot be made (decision 0009 §3).
    public var secretsKeys: [[UInt8]] = []
    /// Whether a webhook endpoint may be a plain `http://` URL (`--webhook-allow-http`); off: `https://` only.
    public var webhookAllowHTTP = false
    /// Whether webhook deliveries may go to private, loopback, link-local or other non-public addresses
    /// (`--webhook-allow-private-addresses`); off, an endpoint naming one is refused, and so is every connection to
    /// one its name resolves to.
    public var webhookAllowPrivateAddresses = false
    /// Seconds one webhook delivery attempt may take, connection included (`--webhook-timeout`, 1–60; Standard
    /// Webhooks suggests 15 to 30): past it the attempt failed and is retried.
    public var webhookTimeout: TimeInterval = 15
    /// The bearer token of `GET /metrics` (`--metrics-token`), for a scraper that should hold no other credential;
    /// the admin key is taken too. nil: the admin key only.
    public var metricsToken: String?
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
    public var trustedProxies: [AddressRange] = []
    /// Seconds a request body may take to arrive after its head (`--request-deadline`, 1–3600); a slower one is
    /// answered 408 request-timeout and its connection closed, so a trickled body cannot hold a connection.
    public var requestDeadlineSeconds: Int = 30
    /// Most TCP connections one client address may hold (`--max-connections-per-address`, 0 for no cap);
    /// more are closed as soon as they are accepted. Loopback peers (a reverse proxy on the host) are not counted.
    public var maxConnectionsPerAddress: Int? = 1000
    /// Most TCP connections the server holds at once (`--max-connections`, 0 or nil for the default: the open-file
    /// limit less 1/32 of it, at least 32 and at most 1024 kept for the server's own descriptors). At the budget a
    /// new connection makes room by closing the one slowest to send its request, else the longest-idle keep-alive
    /// one; WebSockets and requests being answered are never closed for it (docs/security.md, "Limits").
    public var maxConnections: Int?
    /// Days ended calls (with their push outcomes) and events are kept (`--retention-days`, default 30; nil or 0:
    /// forever). A user's call list and a phone's `?since=` replay reach back this far at most.
    public var retentionDays: Int? = 30

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

    /// FCM HTTP v1 settings (docs/configuration.md, docs/fcm.md): which Firebase projects, and where to connect.
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
}

/// A missing or invalid setting; the message names it but never shows a secret's value.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
