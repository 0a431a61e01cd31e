public import RingerHTTP

extension WebServer {
    /// Where and how a ``WebServer`` listens, and its limits.
    public struct Configuration: Sendable {
        /// PEM files for TLS. The server offers HTTP/1.1 only through ALPN (RFC 7301): libwebsockets 4.1.6's HTTP/2
        /// server aborts on a flow-control violation and truncates answers (docs/decisions/0001-refuse-h2c-upgrade.md).
        public struct TLSFiles: Sendable, Equatable {
            /// Server certificate (chain) in PEM.
            public var certificatePath: String
            /// Private key of the certificate in PEM.
            public var privateKeyPath: String

            /// - Parameters:
            ///   - certificatePath: PEM certificate (chain) file.
            ///   - privateKeyPath: PEM private key file.
            public init(certificatePath: String, privateKeyPath: String) {
                self.certificatePath = certificatePath
                self.privateKeyPath = privateKeyPath
            }
        }

        /// IP address (IPv4 or IPv6) or host name to listen on; `"localhost"` means 127.0.0.1 and
        /// `"0.0.0.0"` (or `""`, `"*"`) every IPv4 interface.
        public var host: String
        /// TCP port; 0 picks a free one, which ``WebServer/start()`` returns.
        public var port: Int
        /// TLS files, or `nil` for plain HTTP/1.1.
        public var tls: TLSFiles?
        /// Names of non-standard request headers to capture (case-insensitive; lws 4.1.6's `lws_hdr_custom_copy`).
        public var extraRequestHeaders: [String]
        /// Largest request body, in bytes. A larger declared or received body gets
        /// ``payloadTooLargeResponse`` at once; the rest is discarded, never buffered.
        public var maxRequestBodyBytes: Int
        /// Request paths (without query) where a WebSocket upgrade may be accepted.
        public var webSocketPaths: Set<String>
        /// Largest incoming WebSocket message, in bytes; a larger one closes with 1009 (RFC 6455 §7.4.1)
        /// as soon as its size passes the limit, so no more than this is ever buffered per socket.
        public var maxWebSocketMessageBytes: Int
        /// Seconds an idle keep-alive HTTP connection stays open.
        public var idleTimeoutSeconds: Int
        /// Seconds a request may take on the network side and in its handler before libwebsockets closes the
        /// connection (its `timeout_secs`, whose own default of 5 s dropped any answer slower than that with
        /// an empty reply, e.g. a handler waiting on a busy database). Default 30.
        public var requestTimeoutSeconds: Int
        /// Seconds a WebSocket may be quiet before the server sends a PING; with no data or PONG for
        /// twice as long it hangs up (RFC 6455 §5.5.2). Nil: never. Kept by one timer wheel per server
        /// (ticks of a tenth of a second), so the cost is bounded by the PING rate, not by the number of sockets.
        public var webSocketPingSeconds: Int?
        /// Seconds between two log lines about a failing `accept` (EMFILE/ENFILE: out of descriptors). The
        /// server keeps serving its open sockets meanwhile and closes the connections it cannot take.
        /// Default 10.
        public var acceptFailureReportSeconds: Int = 10
        /// Seconds a request's body may take to arrive, counted from its head: a body that trickles in slower gets
        /// ``requestTimeoutResponse`` (408, RFC 9110 §15.5.9) and the connection (HTTP/1) or stream (HTTP/2) closes.
        /// lws re-arms its own body timeout on every byte, so without this a body sent one byte at a time held its
        /// connection forever (a slowloris). The head itself is cut by lws after 10 s (`timeout_secs_ah_idle`).
        /// Kept by one timer wheel per server (O(1) per request). Default 30.
        public var requestDeadlineSeconds: Int = 30
        /// The answer when a body misses ``requestDeadlineSeconds`` (408 with a small JSON body by default).
        public var requestTimeoutResponse: HTTPResponse = .json(status: 408, #"{"error":"request timeout"}"#)
        /// Most TCP connections one peer address may hold at once; a connection over it is closed as soon as it is
        /// accepted, before lws sees it, and logged once per ``acceptFailureReportSeconds``. Nil: no cap.
        public var maxConnectionsPerAddress: Int?
        /// Most TCP connections the server holds at once (its connection budget). At the budget a new connection
        /// makes room by closing the connection slowest to send its request or to read its answer (no complete head,
        /// a body still trickling in, or an answer not taken, for at least a second), else the longest-idle
        /// keep-alive connection; when every connection is handling a request or a WebSocket, the new one is closed
        /// as soon as it is accepted. Either is logged once per
        /// ``acceptFailureReportSeconds``. Nil: the process's open-file limit less a reserve for the server's own
        /// descriptors (``ConnectionBudget/limit(forFileLimit:)``: 19,375 under 20,000), so accepting never runs
        /// out of descriptors.
        public var maxConnections: Int?
        /// Whether ``maxConnectionsPerAddress`` also counts loopback peers (127.0.0.0/8, ::1). Off by default: a
        /// reverse proxy on the same host carries every client through one address, and tests and benchmarks open
        /// tens of thousands of sockets from 127.0.0.x.
        public var capsLoopbackConnections = false
        /// Largest request head Ringer accepts, in bytes: the request line plus every header lws recognises, each
        /// counted as `name: value` and CRLF. A larger one gets ``headersTooLargeResponse`` (431, RFC 6585 §5).
        /// lws holds up to ``headerBufferBytes``; beyond that it closes the connection unanswered, and headers it
        /// does not recognise count only towards that buffer (lws 4.1.6 cannot list them). Default 8192.
        public var maxRequestHeaderBytes: Int = 8192
        /// The answer to a head over ``maxRequestHeaderBytes`` (431 with a small JSON body by default).
        public var headersTooLargeResponse: HTTPResponse = .json(status: 431, #"{"error":"request headers too large"}"#)
        /// The answer to a request whose target lws could not keep whole: a `%00` (the decoded path would end at
        /// the NUL) or a `%0A`/`%0D` (lws ends the request line there). Status 400 with a small JSON body by default.
        public var badRequestTargetResponse: HTTPResponse = .json(status: 400, #"{"error":"bad request target"}"#)
        /// The answer to an HTTP/1 request whose `Content-Length` is not 1*DIGIT (RFC 9110 §8.6), such as `-5` or
        /// `abc`: RFC 9112 §6.3 makes it an unrecoverable framing error, so nothing runs and the connection closes
        /// after it (400 with a small JSON body by default).
        public var badContentLengthResponse: HTTPResponse = .json(status: 400, #"{"error":"bad content-length"}"#)
        /// The answer to a head with a control character in a header field's value (NUL, or any C0 byte but
        /// horizontal tab, or DEL; RFC 9110 §5.5): lws keeps such a value whole but it reads as text only up to a
        /// NUL, so two values differing after one would look alike. Nothing runs and the connection closes after it
        /// (400 with a small JSON body by default).
        public var badHeaderValueResponse: HTTPResponse = .json(status: 400, #"{"error":"bad header field value"}"#)
        /// The answer to an HTTP/1 request that carries `Transfer-Encoding`: lws 4.1.6 does not decode a chunked
        /// request body, so the request's length is unknown. With `Content-Length` too it is the ambiguity that
        /// request smuggling uses (RFC 9112 §6.1: the connection must close after the answer); without, the client
        /// is told to send a length. Either way nothing runs and the connection closes after this answer.
        /// - Parameter withContentLength: whether `Content-Length` came too.
        /// - Returns: 400 with `Content-Length`, else 411 (RFC 9110 §15.5.12), with a small JSON body by default.
        public var transferEncodingResponder: @Sendable (_ withContentLength: Bool) -> HTTPResponse = { both in
            both
                ? .json(status: 400, #"{"error":"transfer-encoding with content-length"}"#)
                : .json(status: 411, #"{"error":"send the body with a content-length"}"#)
        }
        /// The answer to an HTTP/1 request with a body when lws shows another request pipelined behind it before
        /// the handler started: neither runs, and the connection closes after this (400 with a small JSON body by
        /// default). A request pipelined behind one already running is never run either: that answer goes out
        /// with `connection: close` instead. So is a request with a body that arrives behind a bodiless one in the same
        /// read (lws 4.1.6 loops over such a body, ``ServerEngine/onRequestBodyComplete(_:)``). Bodiless requests
        /// pipelined behind bodiless ones are answered in order.
        public var pipelinedRequestResponse: HTTPResponse = .json(
            status: 400, #"{"error":"send a request behind a body on a new connection"}"#)
        /// The answer to a method lws does not know (TRACE, QUERY, PROPFIND...), which lws would otherwise refuse
        /// with an HTML 403; the connection closes after it (status 501 Not Implemented, RFC 9110 §9.1, with a small
        /// JSON body by default). HTTP/1 without TLS only (a TLS server leaves such methods to lws).
        public var unknownMethodResponse: HTTPResponse = .json(status: 501, #"{"error":"method not implemented"}"#)
        /// Picks the answer to such a method from the request line's method and path (without the query), when
        /// they can be read: a server that routes the path may answer 405 with `Allow` for a standard method
        /// (RFC 9110 §15.5.6) and keep 501 for one it does not recognise. Nil: ``unknownMethodResponse`` always.
        public var unknownMethodResponder: (@Sendable (_ method: String, _ path: String) -> HTTPResponse)?
        /// The answer when a body exceeds ``maxRequestBodyBytes`` (status 413 with a small JSON body
        /// by default; the Ringer API sets its problem+json).
        public var payloadTooLargeResponse: HTTPResponse
        /// The answer to a WebSocket upgrade on a path outside ``webSocketPaths`` (status 404 with a small JSON
        /// body by default; the Ringer API sets its problem+json, as for every other bad request).
        public var webSocketNotFoundResponse: HTTPResponse
        /// The answer to a WebSocket upgrade once the graceful shutdown began (status 503 with a small JSON body
        /// by default): a socket opened then would miss the shutdown's close frame, so the client is told to
        /// come back.
        public var webSocketShuttingDownResponse: HTTPResponse
        /// Whether the handler runs on the service thread (its task prefers ``WebServer``'s executor there, SE-0417)
        /// rather than on Swift's global executor. A request then costs no crossing to another thread to start, and
        /// its answer none to come back: on a loaded two-core machine those wake-ups were a large part of a request's
        /// CPU (issue 33). Only for handlers that never block and do little work between suspensions: while one runs,
        /// no other connection is served. Default false.
        public var handlesRequestsOnServiceThread = false

        /// - Parameters:
        ///   - host: Listen address; default loopback.
        ///   - port: Listen port; 0 for an ephemeral one.
        ///   - tls: PEM files, or `nil` for plain HTTP.
        ///   - extraRequestHeaders: Non-standard header names to capture (HTTP/1 only, see above).
        ///   - maxRequestBodyBytes: Body limit in bytes (default 1 MiB).
        ///   - webSocketPaths: Paths that may upgrade to WebSocket.
        ///   - maxWebSocketMessageBytes: Incoming message limit in bytes (default 1 MiB).
        ///   - idleTimeoutSeconds: Keep-alive idle timeout in seconds (default 60).
        ///   - requestTimeoutSeconds: Request and handler timeout in seconds (default 30).
        public init(
            host: String = "127.0.0.1", port: Int = 0, tls: TLSFiles? = nil,
            extraRequestHeaders: [String] = [], maxRequestBodyBytes: Int = 1 << 20,
            webSocketPaths: Set<String> = [], maxWebSocketMessageBytes: Int = 1 << 20,
            idleTimeoutSeconds: Int = 60, requestTimeoutSeconds: Int = 30
        ) {
            self.host = host
            self.port = port
            self.tls = tls
            self.extraRequestHeaders = extraRequestHeaders
            self.maxRequestBodyBytes = maxRequestBodyBytes
            self.webSocketPaths = webSocketPaths
            self.maxWebSocketMessageBytes = maxWebSocketMessageBytes
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.requestTimeoutSeconds = requestTimeoutSeconds
            payloadTooLargeResponse = .json(status: 413, #"{"error":"request body too large"}"#)
            webSocketNotFoundResponse = .json(status: 404, #"{"error":"no websocket here"}"#)
            webSocketShuttingDownResponse = .json(status: 503, #"{"error":"server shutting down"}"#)
        }

        /// Bytes lws may hold of one request head (its `max_http_header_data`): twice the largest
        /// ``maxRequestHeaderBytes``, so that a head over the limit is still parsed and answered 431.
        static let headerBufferBytes = 32 * 1024

        /// Why the configuration cannot be used, or `nil` when it can.
        var problem: String? {
            if !(0...65535).contains(port) { return "port \(port) is outside 0...65535" }
            if maxRequestBodyBytes < 0 { return "maxRequestBodyBytes is negative" }
            if maxWebSocketMessageBytes < 1 { return "maxWebSocketMessageBytes must be positive" }
            if !(1...86_400).contains(idleTimeoutSeconds) { return "idleTimeoutSeconds is outside 1...86400" }
            if !(1...3600).contains(requestTimeoutSeconds) { return "requestTimeoutSeconds is outside 1...3600" }
            if !(1...3600).contains(acceptFailureReportSeconds) {
                return "acceptFailureReportSeconds is outside 1...3600"
            }
            if let ping = webSocketPingSeconds, !(1...3600).contains(ping) {
                return "webSocketPingSeconds is outside 1...3600"
            }
            if !(1...3600).contains(requestDeadlineSeconds) { return "requestDeadlineSeconds is outside 1...3600" }
            if let cap = maxConnectionsPerAddress, cap < 1 { return "maxConnectionsPerAddress must be positive" }
            if let budget = maxConnections, budget < 1 { return "maxConnections must be positive" }
            if !(1024...Self.headerBufferBytes / 2).contains(maxRequestHeaderBytes) {
                return "maxRequestHeaderBytes is outside 1024...\(Self.headerBufferBytes / 2)"
            }
            return nil
        }
    }
}
