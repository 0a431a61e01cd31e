import CLWS

/// Client connection life: connect, handshake headers, messages, close.
extension ClientEngine {
    /// Drains the mailbox after `lws_cancel_service` (lws calls this once per vhost; later calls find it empty).
    func onWake() -> Int32 {
        // Until none is left: the mailbox wakes nobody for a post while its messages are being taken.
        while case let messages = mailbox.drain(), !messages.isEmpty {
            for message in messages {
                switch message {
                case .connect(let request):
                    open(request)
                case .writable(let id):
                    guard let session = table.sessions[id], session.isEstablished, let wsi = session.wsi else {
                        continue
                    }
                    lws_callback_on_writable(wsi)
                }
            }
        }
        return 0
    }

    /// Starts one connection through `lws_client_connect_via_info`.
    private func open(_ request: ClientConnectRequest) {
        let table = self.table
        guard let context = table.context, let vhost = vhost(forCAFile: request.caFile) else {
            request.client.finishConnecting(
                .failure(
                    LibWebSocketsError.connectFailed.with(
                        function: "lws_create_vhost", detail: "cannot load CA file for the client")))
            return
        }
        let session = ClientSession(request: request)
        table.sessions[request.client.id] = session
        let strings = ContextResources()
        var info = lws_client_connect_info()
        info.context = context
        info.vhost = vhost
        info.address = strings.cString(request.address)
        info.port = Int32(request.port)
        info.path = strings.cString(request.pathAndQuery)
        info.host = strings.cString(request.hostHeader)
        info.origin = strings.cString(request.hostHeader)
        info.ssl_connection = request.useTLS ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(request.client.id))
        var wsi: OpaquePointer?
        withUnsafeMutablePointer(to: &wsi) { pointer in
            info.pwsi = pointer
            _ = lws_client_connect_via_info(&info)
        }
        withExtendedLifetime(strings) {}
        if let wsi {
            session.wsi = wsi
        } else if table.sessions.removeValue(forKey: request.client.id) != nil {
            request.client.finishConnecting(
                .failure(
                    LibWebSocketsError.connectFailed.with(
                        function: "lws_client_connect_via_info", detail: "could not start connecting")))
        }
    }

    /// The vhost whose client TLS context trusts `caFile` (nil: the system store), created on first use.
    private func vhost(forCAFile caFile: String?) -> OpaquePointer? {
        let table = self.table
        let key = caFile ?? ""
        if let vhost = table.vhostsByCAFile[key] { return vhost }
        guard let context = table.context else { return nil }
        if caFile == nil, let vhost = lws_get_vhost_by_name(context, "default") {
            table.vhostsByCAFile[key] = vhost
            return vhost
        }
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.vhost_name = table.resources.cString("client-ca-\(table.vhostsByCAFile.count)")
        info.protocols = table.resources.protocols(
            name: "websocket-client", callback: clwsClientCallback,
            rxBufferSize: 16 * 1024)
        info.options = CLWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT | CLWS_SERVER_OPTION_VALIDATE_UTF8
        info.client_ssl_ca_filepath = table.resources.cString(key)
        guard let vhost = lws_create_vhost(context, &info) else { return nil }
        table.vhostsByCAFile[key] = vhost
        return vhost
    }

    /// `LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER`: `input` is `char **p`, `length` the room left.
    func onAppendHeaders(_ wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let session = session(for: wsi), let input else { return 0 }
        let cursorPointer = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursorPointer.pointee else { return -1 }
        let end = start + length
        for (name, value) in session.request.headers {
            let valueBytes = Array(value.utf8)
            let added = (name.lowercased() + ":").withCString { cName in
                cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 2) { namePointer in
                    lws_add_http_header_by_name(
                        wsi, namePointer, valueBytes, Int32(valueBytes.count),
                        cursorPointer, end)
                }
            }
            if added != 0 { return -1 }
        }
        return 0
    }

    /// `LWS_CALLBACK_CLIENT_ESTABLISHED`: the handshake succeeded.
    func onEstablished(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return -1 }
        session.isEstablished = true
        session.wsi = wsi
        session.client.finishConnecting(.success(()))
        if session.client.outbox.hasQueuedMessages || session.client.outbox.isCloseRequested {
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// `LWS_CALLBACK_CLIENT_CONNECTION_ERROR`: connecting or the handshake failed; `input` may
    /// hold lws' reason text.
    func onConnectionError(_ wsi: OpaquePointer, message: UnsafeMutableRawPointer?) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        let reason = message.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        // The status line of a refused upgrade is still held here (lws frees the headers after this
        // callback); 0 when no response arrived (refused port, TLS, timeout).
        let status = Int(lws_http_client_http_response(wsi))
        forget(
            session, wsi: wsi,
            error: LibWebSocketsError.connectFailed.with(
                function: "lws_client_connect_via_info", detail: reason,
                httpStatus: status > 0 && status != 101 ? status : nil))
        return 0
    }

    /// `LWS_CALLBACK_WS_PEER_INITIATED_CLOSE`: the server's close frame; `payload` is the optional
    /// big-endian code and UTF-8 reason (RFC 6455 §5.5.1). Returning 0 lets lws echo it.
    func onPeerClose(_ wsi: OpaquePointer, payload: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        guard let payload, length >= 2 else {
            session.closeFrame = (code: 1005, reason: "")  // no status code present (RFC 6455 §7.4.1)
            return 0
        }
        let bytes = UnsafeRawBufferPointer(start: payload, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        session.closeFrame = (code: code, reason: String(decoding: bytes[2...], as: UTF8.self))
        return 0
    }

    /// `LWS_CALLBACK_CLIENT_RECEIVE`: one piece of a message.
    func onReceive(_ wsi: OpaquePointer, bytes: UnsafeMutableRawPointer?, count: Int) -> Int32 {
        guard let session = session(for: wsi) else { return -1 }
        switch session.assembler.receive(on: wsi, bytes: bytes, count: count) {
        case .incomplete, .binary:
            return 0
        case .text(let text):
            session.client.deliver(text: text)
            return 0
        case .tooBig:
            session.closeFrame = (code: 1009, reason: "")
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, nil, 0)
            return -1
        }
    }

    /// `LWS_CALLBACK_CLIENT_WRITEABLE`: one fragment of the oldest queued message, or the close.
    func onWritable(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        return session.frameWriter.serviceWritable(wsi, from: session.client.outbox, using: table.scratch)
    }

    /// `LWS_CALLBACK_CLIENT_CLOSED` / `LWS_CALLBACK_WSI_DESTROY`: the connection is gone.
    func onClosed(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        forget(
            session, wsi: wsi,
            error: LibWebSocketsError.connectFailed.with(
                function: "lws_client_connect_via_info", detail: "closed during the handshake"))
        return 0
    }

    /// Stops tracking a connection: a pending connect fails with `error`, an open one reports close.
    private func forget(_ session: ClientSession, wsi: OpaquePointer, error: LibWebSocketsError) {
        table.sessions[session.client.id] = nil
        lws_set_opaque_user_data(wsi, nil)
        session.wsi = nil
        if session.isEstablished {
            // RFC 6455 §7.1.5: the code of the first close frame received; one this client sent first
            // (and the server echoed) counts as its own; none at all is 1006.
            let requested = session.client.outbox.isCloseRequested ? session.client.outbox.closeStatus : nil
            let close =
                session.closeFrame
                ?? requested.map { (code: $0.code, reason: String(decoding: $0.reason, as: UTF8.self)) }
                ?? (code: 1006, reason: "")
            session.client.didClose(code: close.code, reason: close.reason)
        } else {
            session.client.outbox.markClosed()
            session.client.finishConnecting(.failure(error))
        }
    }
}
