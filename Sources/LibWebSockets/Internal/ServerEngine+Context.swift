import CLWS

/// Creation of the server's lws context.
extension ServerEngine {
    /// Fills `lws_context_creation_info` for this server; `resources` keeps the C strings alive.
    func makeContextInfo(_ resources: ContextResources) -> lws_context_creation_info {
        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        switch configuration.host {
        case "", "0.0.0.0", "*": info.iface = nil
        case "localhost": info.iface = resources.cString("127.0.0.1")
        default: info.iface = resources.cString(configuration.host)
        }
        info.protocols = resources.protocols(name: "http-and-websocket", callback: clwsServerCallback,
                                             rxBufferSize: 16 * 1024)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.options = CLWS_SERVER_OPTION_VALIDATE_UTF8 | CLWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND
            | CLWS_SERVER_OPTION_H2_JUST_FIX_WINDOW_UPDATE_OVERFLOW
        if !configuration.host.contains(":") { info.options |= CLWS_SERVER_OPTION_DISABLE_IPV6 }
        info.max_http_header_data = 8192
        info.keepalive_timeout = Int32(configuration.idleTimeoutSeconds)
        info.timeout_secs = UInt32(configuration.requestTimeoutSeconds)
        if let ping = configuration.webSocketPingSeconds {
            // A socket whose peer vanished (phone off, network gone) must not keep counting as online.
            info.retry_and_idle_policy = resources.idlePolicy(pingAfter: UInt16(ping), hangUpAfter: UInt16(ping * 2))
        }
        // lws' stock HTTP/2 settings except the stream limit: [0] = 1 means "use [1]...[6]", which are
        // header table size, push, max concurrent streams, initial window (0: lws sends
        // WINDOW_UPDATEs itself), max frame size, max header list size (RFC 9113 §6.5.2).
        info.http2_settings = (1, 65536, 0, UInt32(configuration.maxConcurrentStreams), 0, 16384, 8192)
        if let tls = configuration.tls {
            info.options |= CLWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT
            info.ssl_cert_filepath = resources.cString(tls.certificatePath)
            info.ssl_private_key_filepath = resources.cString(tls.privateKeyPath)
            info.alpn = resources.cString("h2,http/1.1")
        }
        return info
    }
}
