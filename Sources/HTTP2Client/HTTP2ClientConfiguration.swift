public import Foundation

extension HTTP2Client {
    /// Settings fixed for a client's life. Certificate, key and CA files are read once, when the client is made.
    public struct Configuration: Sendable {
        /// PEM file of extra CA certificates to trust (e.g. a local APNs sandbox), in addition to the system
        /// trust store (OpenSSL's default paths; Debian: /etc/ssl/certs). Nil uses the system store only.
        public var caFile: String?
        /// Verify the server certificate chain and host name. Only a test may turn this off.
        public var verifyPeer: Bool
        /// Maximum simultaneous connections to one host (`scheme://host:port`), not counting connections
        /// draining after GOAWAY; further requests multiplex as HTTP/2 streams or wait. A new connection is
        /// opened only when every open one is full and none is being set up. 0 means unlimited. Apple asks
        /// providers to reuse a few long-lived connections rather than open one per push.
        public var maxConnectionsPerHost: Int
        /// Most streams the client opens at once on one HTTP/2 connection; the server's own
        /// `SETTINGS_MAX_CONCURRENT_STREAMS` caps it further, as it changes (down to 1). A new connection
        /// carries one stream until the server's first SETTINGS arrive. Requests beyond the limit wait for a
        /// free stream, within their deadline.
        public var maxConcurrentStreams: Int
        /// Speak HTTP/2 without negotiation (h2c prior knowledge) on plain `http://` URLs.
        /// `https://` always negotiates h2 through TLS ALPN.
        public var http2PriorKnowledge: Bool
        /// Client certificate for mutual TLS (APNs certificate-based authentication).
        public var clientCertificate: ClientCertificate?
        /// Value of the `user-agent` header.
        public var userAgent: String
        /// Largest response body accepted, in bytes; a larger body fails the request with a
        /// transport error rather than exhausting memory.
        public var maxResponseBodyBytes: Int
        /// Seconds a connection may sit with no stream open and still be reused; after that the client closes
        /// it (GOAWAY) and the next request opens a new one. A push provider that must answer the next call at
        /// once wants it long, and keeps the idle connection alive with ``keepAliveInterval``.
        public var connectionIdleLifetime: TimeInterval
        /// Seconds of silence after which the client sends an HTTP/2 PING on a connection (RFC 9113 §6.7), so
        /// NAT and firewall state stays warm and a dead peer is noticed: a PING unanswered for this interval
        /// (at most 10 s) means a half-open connection, which is closed so the next request does not vanish
        /// into it. The kernel's TCP keep-alive probes are armed with the same idle time as well (tcp(7)).
        /// Nil turns both off.
        public var keepAliveInterval: TimeInterval?
        /// After a request gets no answer by its deadline, close its connection if nothing at all was
        /// answered on it since the request was sent: such a connection is presumed dead (a half-open TCP
        /// connection swallows every stream), and later requests go to a new one. Streams still open on it
        /// fail, and are resent if their ``HTTP2Request/connectionRetries`` allow.
        public var recyclesSilentConnections: Bool
        /// Seconds a new connection may take from `connect` to an HTTP/2 session with the server's SETTINGS
        /// (TCP, TLS handshake, ALPN, first SETTINGS); past that it fails and what waited for it counts one
        /// failed attempt, so a server that accepts and then hangs cannot hold requests until their deadlines.
        public var connectTimeout: TimeInterval
        /// Longest wait, in seconds, before reconnecting to a host whose connections keep failing. The
        /// first failure reconnects at once; each further one in a row doubles the wait from 0.1 s up to
        /// this cap (with jitter); an answer from the host resets it. Requests wait within their deadlines.
        public var maxReconnectDelay: TimeInterval

        /// Creates a configuration.
        /// - Parameters:
        ///   - caFile: Extra CA bundle (PEM path) to trust instead of the system store; nil for the system store.
        ///   - verifyPeer: Verify server certificates; defaults to true.
        ///   - maxConnectionsPerHost: Connection cap per host, default 1 (all requests share one HTTP/2 connection).
        ///   - maxConcurrentStreams: Stream cap per connection, default 100.
        ///   - http2PriorKnowledge: Use h2c prior knowledge for `http://` URLs; default false.
        ///   - clientCertificate: Mutual-TLS identity; default none.
        ///   - userAgent: `user-agent` header value.
        ///   - maxResponseBodyBytes: Response body cap in bytes; default 1 MiB.
        ///   - connectionIdleLifetime: Seconds an idle connection stays reusable; default 118.
        ///   - keepAliveInterval: Seconds of silence before a keep-alive PING (and TCP probes); default 60, nil for none.
        ///   - recyclesSilentConnections: Close a connection that answered nothing while a request timed out; default true.
        ///   - maxReconnectDelay: Cap of the reconnect backoff in seconds; default 5.
        ///   - connectTimeout: Seconds to set a connection up; default 10.
        public init(
            caFile: String? = nil,
            verifyPeer: Bool = true,
            maxConnectionsPerHost: Int = 1,
            maxConcurrentStreams: Int = 100,
            http2PriorKnowledge: Bool = false,
            clientCertificate: ClientCertificate? = nil,
            userAgent: String = "Ringer-HTTP2Client/1",
            maxResponseBodyBytes: Int = 1 << 20,
            connectionIdleLifetime: TimeInterval = 118,
            keepAliveInterval: TimeInterval? = 60,
            recyclesSilentConnections: Bool = true,
            maxReconnectDelay: TimeInterval = 5,
            connectTimeout: TimeInterval = 10
        ) {
            self.caFile = caFile
            self.verifyPeer = verifyPeer
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConcurrentStreams = maxConcurrentStreams
            self.http2PriorKnowledge = http2PriorKnowledge
            self.clientCertificate = clientCertificate
            self.userAgent = userAgent
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.connectionIdleLifetime = connectionIdleLifetime
            self.keepAliveInterval = keepAliveInterval
            self.recyclesSilentConnections = recyclesSilentConnections
            self.maxReconnectDelay = maxReconnectDelay
            self.connectTimeout = connectTimeout
        }

        /// Rejects values the client cannot use; ``HTTP2Client/init(configuration:)`` calls it too.
        /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` naming the bad value.
        public func validate() throws(HTTP2ClientError) {
            guard maxConnectionsPerHost >= 0 else {
                throw .invalidRequest("maxConnectionsPerHost must be >= 0")
            }
            guard (1...Int(Int32.max)).contains(maxConcurrentStreams) else {
                throw .invalidRequest("maxConcurrentStreams must be between 1 and 2^31-1")
            }
            guard maxResponseBodyBytes >= 0 else {
                throw .invalidRequest("maxResponseBodyBytes must be >= 0")
            }
            guard connectionIdleLifetime.isFinite, (1...Double(Int32.max)).contains(connectionIdleLifetime) else {
                throw .invalidRequest("connectionIdleLifetime must be between 1 and 2^31-1 seconds")
            }
            if let keepAliveInterval {
                guard keepAliveInterval.isFinite, (1...86_400).contains(keepAliveInterval) else {
                    throw .invalidRequest("keepAliveInterval must be between 1 and 86400 seconds")
                }
            }
            guard connectTimeout.isFinite, (0.01...3600).contains(connectTimeout) else {
                throw .invalidRequest("connectTimeout must be between 0.01 and 3600 seconds")
            }
            guard maxReconnectDelay.isFinite, (0...3600).contains(maxReconnectDelay) else {
                throw .invalidRequest("maxReconnectDelay must be between 0 and 3600 seconds")
            }
            let strings = [
                caFile, userAgent, clientCertificate?.certificateFile, clientCertificate?.keyFile,
                clientCertificate?.password,
            ]
            guard !strings.contains(where: { $0?.utf8.contains(0) == true }) else {
                throw .invalidRequest("a configuration string (path, user agent or password) contains NUL")
            }
            guard !userAgent.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw .invalidRequest("userAgent contains CR or LF")
            }
        }
    }

    /// A TLS client identity, loaded into OpenSSL when the client is made.
    /// Its description never shows the password.
    public struct ClientCertificate: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// File format of ``certificateFile``.
        public enum Format: String, Sendable {
            /// PEM certificate; the key is in ``keyFile`` or in the same file.
            case pem = "PEM"
            /// PKCS#12 bundle holding certificate and key, as exported from Keychain for APNs.
            case p12 = "P12"
        }

        /// Path of the certificate (PEM) or the PKCS#12 bundle.
        public var certificateFile: String
        /// Path of the PEM private key when not inside ``certificateFile``; unused for P12.
        public var keyFile: String?
        /// Format of ``certificateFile``.
        public var format: Format
        /// Passphrase of the key or the PKCS#12 bundle, if it is encrypted.
        public var password: String?

        /// Creates a client identity.
        /// - Parameters:
        ///   - certificateFile: Certificate or PKCS#12 path.
        ///   - keyFile: Separate PEM key path, if any.
        ///   - format: `.pem` (default) or `.p12`.
        ///   - password: Key or bundle passphrase, if any.
        public init(certificateFile: String, keyFile: String? = nil, format: Format = .pem, password: String? = nil) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.format = format
            self.password = password
        }

        /// Paths and format; the password is redacted.
        public var description: String {
            "ClientCertificate(\(format.rawValue) \(certificateFile), key: \(keyFile ?? "-"), password: \(password == nil ? "none" : "<redacted>"))"
        }

        /// Same as ``description``.
        public var debugDescription: String {
            description
        }
    }
}
