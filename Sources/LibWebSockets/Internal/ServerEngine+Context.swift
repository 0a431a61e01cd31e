import CLWS
import CUV

/// Creation of the server's lws context.
extension ServerEngine {
    /// Bytes lws reads into per WebSocket before handing a piece to ``MessageAssembler``. lws allocates this
    /// buffer for every WebSocket when it opens and keeps it until it closes (`lws_server_init_wsi_for_ws`),
    /// so it is sized for idle sockets: 16 KiB made each idle socket touch a page of its own. 256 bytes still
    /// hold any control frame whole (payload ≤ 125 bytes, RFC 6455 §5.5); longer messages come in pieces.
    static let webSocketReadBufferBytes = 256

    /// Bytes lws sends per `send` at most (`tx_packet_size`). Left at 0, lws 4.1 limits each send to the receive
    /// buffer above plus `LWS_PRE` and 4 (`lws_issue_raw`, "limit sending"), so a 1 KB answer or event frame went out
    /// in four sends, each after its own trip through the event loop for POLLOUT (found in issue 33's review). One
    /// ``ResponseWriter`` chunk, plus lws' headroom for a WebSocket frame header: every answer and event Ringer writes
    /// goes in one send when the socket takes it. No buffer of this size is allocated; it is only a limit.
    static let sendLimitBytes = ResponseWriter.chunkSize + 64

    /// Fills `lws_context_creation_info` for this server on the libuv `loop`; `resources` keeps the C
    /// memory alive. lws does not listen: the wrapper accepts and hands each socket to the vhost.
    func makeContextInfo(
        _ resources: ContextResources, loop: UnsafeMutablePointer<uv_loop_t>
    ) -> lws_context_creation_info {
        var info = lws_context_creation_info()
        info.port = CLWS_CONTEXT_PORT_NO_LISTEN_SERVER
        info.options = CLWS_SERVER_OPTION_LIBUV
        info.foreign_loops = resources.foreignLoops(loop)
        info.protocols = resources.protocols(
            name: "http-and-websocket", callback: clwsServerCallback,
            rxBufferSize: min(
                configuration.maxWebSocketMessageBytes,
                Self.webSocketReadBufferBytes),
            txPacketSize: Self.sendLimitBytes)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options |=
            CLWS_SERVER_OPTION_VALIDATE_UTF8 | CLWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND
            | CLWS_SERVER_OPTION_H2_JUST_FIX_WINDOW_UPDATE_OVERFLOW
        // An unknown method makes lws hand the connection to the raw-socket role and protocols[0] (this callback)
        // instead of writing an HTML 403: ``ServerEngine/onUnknownMethod(_:)`` answers it. Plain HTTP only: on a
        // TLS vhost the option also takes a connection whose first bytes are not (yet) a ClientHello for raw, and
        // under load a TLS client was answered that way (`SSL err 1` in a loaded test run).
        if configuration.tls == nil {
            info.options |= CLWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG
        }
        // Room for a head over Ringer's own limit, so that it is answered 431 rather than dropped (lws closes a
        // connection whose head outgrows this buffer). Held only while a head is parsed.
        info.max_http_header_data = UInt16(WebServer.Configuration.headerBufferBytes)
        info.timeout_secs_ah_idle = 10
        info.keepalive_timeout = Int32(configuration.idleTimeoutSeconds)
        info.timeout_secs = UInt32(configuration.requestTimeoutSeconds)
        // No per-socket lws validity timers (by default lws arms one per connection, PING at 300 s, in a
        // sorted list that each insertion walks): the wrapper's KeepaliveWheel does PING and idle hang-up.
        info.retry_and_idle_policy = resources.noIdlePolicy()
        if let tls = configuration.tls {
            info.options |= CLWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT
            info.ssl_cert_filepath = resources.cString(tls.certificatePath)
            info.ssl_private_key_filepath = resources.cString(tls.privateKeyPath)
            // HTTP/1.1 only: lws 4.1.6's HTTP/2 server aborts the process on a client that overruns its flow-control
            // window (an assertion in lws_buflist_use_segment) and cuts answers longer than the protocol's buffer
            // (docs/decisions/0001-refuse-h2c-upgrade.md). Ringer's HTTP/2 servers are nghttp2's (HTTP2Server).
            info.alpn = resources.cString("http/1.1")
        }
        return info
    }
}
