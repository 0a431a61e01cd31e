extension HTTP2Server {
    /// Where and how an ``HTTP2Server`` listens, and the limits it enforces per connection and stream.
    ///
    /// A plain value; copy it freely between threads.
    public struct Configuration: Sendable {
        /// Numeric address or host name to bind, e.g. `"127.0.0.1"`, `"::1"` or `"0.0.0.0"`.
        public var host: String
        /// TCP port to bind; `0` picks an ephemeral port, which ``HTTP2Server/start()`` returns.
        public var port: Int
        /// PEM file with the server certificate first, then any intermediates.
        public var certificatePath: String
        /// PEM file with the certificate's private key (unencrypted).
        public var privateKeyPath: String
        /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to each client (RFC 9113 §6.5.2), 0…2³¹−1.
        /// Change it at run time with ``HTTP2Server/setMaxConcurrentStreams(_:)``.
        public var maxConcurrentStreams: Int
        /// Largest request body in bytes. A longer body is answered with 413 as soon as it exceeds this (or
        /// up front when `content-length` announces it); the rest of the upload is read and discarded, never
        /// buffered. No RST_STREAM follows the 413: libcurl 7.88 (Debian 12) reports RST_STREAM(NO_ERROR)
        /// after an early response as error 92 and loses the response, whereas without it curl sees the 413
        /// and stops uploading by itself.
        public var maxRequestBodyBytes: Int
        /// Largest request header list in bytes (names plus values plus 32 per field, RFC 9113 §6.5.2), also
        /// advertised as SETTINGS_MAX_HEADER_LIST_SIZE. A longer header block resets the stream.
        public var maxRequestHeaderBytes: Int
        /// Seconds a connection may sit with no open stream and no traffic before it is closed with
        /// GOAWAY (NO_ERROR); `nil` keeps idle connections forever.
        public var idleTimeout: Double?
        /// Seconds a new connection has to complete its TLS handshake.
        public var handshakeTimeout: Double
        /// PEM file of the CA certificates that sign client certificates; nil asks clients for none.
        ///
        /// When set, the handshake requests a client certificate (mutual TLS) and one that does not verify
        /// against these CAs fails the handshake. A client may still send none (as Apple's APNs hosts allow
        /// for provider tokens); the verified certificate reaches handlers as
        /// ``RingerHTTP/HTTPRequest/clientCertificate``.
        public var clientCAPath: String?

        /// Creates a configuration.
        /// - Parameters:
        ///   - certificatePath: PEM certificate chain file.
        ///   - privateKeyPath: PEM private key file.
        ///   - host: Address to bind; loopback by default.
        ///   - port: Port to bind; 0 for an ephemeral one.
        ///   - maxConcurrentStreams: Streams a client may open at once per connection.
        ///   - maxRequestBodyBytes: Body limit in bytes (64 KiB by default).
        ///   - maxRequestHeaderBytes: Header list limit in bytes (64 KiB by default).
        ///   - idleTimeout: Idle connection lifetime in seconds, or `nil` for none.
        ///   - handshakeTimeout: TLS handshake deadline in seconds.
        ///   - clientCAPath: PEM CA file that client certificates must chain to; nil requests none.
        public init(
            certificatePath: String, privateKeyPath: String, host: String = "127.0.0.1", port: Int = 0,
            maxConcurrentStreams: Int = 1000, maxRequestBodyBytes: Int = 64 * 1024,
            maxRequestHeaderBytes: Int = 64 * 1024, idleTimeout: Double? = 300, handshakeTimeout: Double = 10,
            clientCAPath: String? = nil
        ) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.host = host
            self.port = port
            self.maxConcurrentStreams = maxConcurrentStreams
            self.maxRequestBodyBytes = maxRequestBodyBytes
            self.maxRequestHeaderBytes = maxRequestHeaderBytes
            self.idleTimeout = idleTimeout
            self.handshakeTimeout = handshakeTimeout
            self.clientCAPath = clientCAPath
        }

        /// Checks every value's range.
        /// - Throws: ``HTTP2ServerError/invalidConfiguration(_:)`` naming the first bad value.
        func validate() throws {
            guard (0...65_535).contains(port) else {
                throw HTTP2ServerError.invalidConfiguration("port \(port) is outside 0...65535")
            }
            guard (0...Int(Int32.max)).contains(maxConcurrentStreams) else {
                throw HTTP2ServerError.invalidConfiguration("maxConcurrentStreams must be 0...2^31-1")
            }
            guard maxRequestBodyBytes >= 0 else {
                throw HTTP2ServerError.invalidConfiguration("maxRequestBodyBytes must not be negative")
            }
            guard (1...Int(Int32.max)).contains(maxRequestHeaderBytes) else {
                throw HTTP2ServerError.invalidConfiguration("maxRequestHeaderBytes must be 1...2^31-1")
            }
            if let idleTimeout, !(idleTimeout > 0 && idleTimeout.isFinite) {
                throw HTTP2ServerError.invalidConfiguration("idleTimeout must be a positive number of seconds or nil")
            }
            guard handshakeTimeout > 0, handshakeTimeout.isFinite else {
                throw HTTP2ServerError.invalidConfiguration("handshakeTimeout must be a positive number of seconds")
            }
            guard !certificatePath.isEmpty, !privateKeyPath.isEmpty else {
                throw HTTP2ServerError.invalidConfiguration("certificatePath and privateKeyPath are required")
            }
            if let clientCAPath, clientCAPath.isEmpty {
                throw HTTP2ServerError.invalidConfiguration("clientCAPath must be a file path or nil")
            }
        }
    }
}
