import CLWS
import RingerHTTP

/// WebSocket handling: the upgrade decision, messages in, queued messages out.
extension ServerEngine {
    /// `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE`: decide synchronously, with the parsed path, query and
    /// headers, whether this upgrade may proceed. Returns 0 to continue the handshake, 1 after
    /// writing a refusal (lws then completes the HTTP transaction), -1 to hang up.
    ///
    /// An `h2c` upgrade is ignored, as RFC 9110 §7.8 lets a server do: the request is answered over HTTP/1.1 and the
    /// connection stays HTTP/1.1 (docs/decisions/0001-refuse-h2c-upgrade.md says why).
    func onConfirmUpgrade(_ wsi: OpaquePointer, protocolName: UnsafeMutableRawPointer?) -> Int32 {
        let upgrade = protocolName.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
        if upgrade.lowercased() == "h2c", let protocolName {
            // lws hands over its own copy of the `Upgrade` value and, once this returns 0, compares it with
            // "websocket" and "h2c" to pick the upgrade; an empty value matches neither, so lws takes its
            // no-upgrade path and reports the request as LWS_CALLBACK_HTTP, body and all (lws 4.1.6,
            // lws_handshake_server). Refusing instead (returning 1 after an answer) would have to answer before the
            // handler ran and would lose a POST's body.
            protocolName.storeBytes(of: 0, as: UInt8.self)
            return 0
        }
        guard upgrade.lowercased() == "websocket" else { return 0 }
        budget(wsi, .busy)
        let session = makeSession(for: wsi)
        let request = RequestReader.head(of: wsi, extraHeaders: extraHeaderNames)
        session.request = request
        if RequestReader.hasControlCharacterInValue(wsi, extraHeaders: extraHeaderNames) {
            return refuseUpgrade(session, with: configuration.badHeaderValueResponse)
        }
        guard let upgradeHandler, configuration.webSocketPaths.contains(request.path) else {
            return refuseUpgrade(session, with: configuration.webSocketNotFoundResponse)
        }
        // A socket opened now would miss the shutdown's close frame: the client is told to come back.
        guard !isGoingAway else {
            return refuseUpgrade(session, with: configuration.webSocketShuttingDownResponse)
        }
        let id = session.id
        let mailbox = self.mailbox
        let outbox = WebSocketOutbox(wake: { mailbox.post(.writable(session: id)) })
        let connection = WebSocketConnection(id: id, outbox: outbox)
        switch upgradeHandler(request, connection) {
        case .accept(let delegate):
            session.webSocket = connection
            session.delegate = delegate
            // The connection keeps the request; the session needs no copy for the socket's life.
            session.request = nil
            return 0
        case .reject(let response):
            return refuseUpgrade(session, with: response)
        }
    }

    /// `LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION`: only upgrades accepted above may complete.
    func onFilterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        session(for: wsi)?.webSocket == nil ? 1 : 0
    }

    /// `LWS_CALLBACK_ESTABLISHED`: flush whatever the upgrade handler queued already.
    func onWebSocketEstablished(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi), let connection = session.webSocket else { return -1 }
        budget(wsi, .longLived)
        table.keepalive?.open(session.id, at: loopTick)
        if connection.outbox.hasQueuedMessages || connection.outbox.isCloseRequested {
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// `LWS_CALLBACK_RECEIVE`: one piece of a message.
    func onWebSocketReceive(_ wsi: OpaquePointer, bytes: UnsafeMutableRawPointer?, count: Int) -> Int32 {
        guard let session = session(for: wsi), let connection = session.webSocket else { return -1 }
        table.keepalive?.heard(session.id, at: loopTick)
        switch session.assembler.receive(on: wsi, bytes: bytes, count: count) {
        case .incomplete, .binary:
            return 0
        case .text(let text):
            session.delegate?.webSocket(connection, didReceiveText: text)
            return 0
        case .tooBig:
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, nil, 0)
            return -1
        }
    }

    /// The application data of the server's PINGs.
    static let pingPayload: ArraySlice<UInt8> = ArraySlice("ringer".utf8)

    /// `LWS_CALLBACK_WS_PEER_INITIATED_CLOSE`: a close frame arrived. After the server's own close frame it is
    /// the reply that completes the closing handshake (RFC 6455 §7.1.2): close now, without the echo lws would
    /// send (a second close frame). Otherwise lws answers it as usual.
    func onWebSocketPeerClose(_ wsi: OpaquePointer) -> Int32 {
        session(for: wsi)?.frameWriter.hasSentClose == true ? -1 : 0
    }

    /// `LWS_CALLBACK_RECEIVE_PONG`: the peer answered a PING, so it is alive.
    func onWebSocketPong(_ wsi: OpaquePointer) -> Int32 {
        if let session = session(for: wsi) { table.keepalive?.heard(session.id, at: loopTick) }
        return 0
    }

    /// `LWS_CALLBACK_SERVER_WRITEABLE`: a PING the keepalive wheel asked for, else one fragment of the
    /// oldest queued message, or the close.
    func onWebSocketWritable(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi), let connection = session.webSocket else { return 0 }
        // After the close frame nothing more may be sent (RFC 6455 §5.5.1), a PING included.
        if session.pingDue, !session.frameWriter.hasSentClose {
            session.pingDue = false
            // A control frame may sit between the fragments of a message (RFC 6455 §5.4). The PING carries a
            // payload because the PONG echoes it (§5.5.3) and lws 4.1.6 reports no PONG whose payload is empty.
            guard table.scratch.write(wsi, Self.pingPayload, mode: LWS_WRITE_PING.rawValue) >= 0 else { return -1 }
            if session.frameWriter.isInMessage || connection.outbox.hasQueuedMessages
                || connection.outbox.isCloseRequested
            {
                lws_callback_on_writable(wsi)
            }
            return 0
        }
        return session.frameWriter.serviceWritable(
            wsi, from: connection.outbox, using: table.scratch, writesCloseFrame: true,
            awaitsCloseReply: isGoingAway)
    }

    /// Writes a small JSON refusal on the upgrade request, outside a writable callback as lws
    /// allows for short responses (it buffers what the socket does not take).
    private func refuseUpgrade(_ session: ServerSession, with response: HTTPResponse) -> Int32 {
        var writer = ResponseWriter(response: response, isHTTP2: false, isHead: false, closesConnection: false)
        while true {
            switch writer.writeNext(on: session.wsi, using: table.scratch) {
            case .more: continue
            case .finished: return 1
            case .failed: return -1
            }
        }
    }
}
