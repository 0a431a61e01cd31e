import CLWS
import RingerHTTP

/// Work that other threads hand to a server's service thread.
enum ServerMessage: Sendable {
    /// The handler finished the request of `session`.
    case response(session: UInt64, HTTPResponse)
    /// The body of `session`'s request is complete and no other request was pipelined behind it in the same
    /// service turn: run the handler (posted by the service thread to itself).
    case dispatch(session: UInt64)
    /// A WebSocket of `session` has something to write (or close).
    case writable(session: UInt64)
    /// Shut down gracefully: every open WebSocket gets `status`, the loop stops once all closed or after `ticks`.
    case goAway(WebSocketOutbox.CloseStatus, ticks: Int)
    /// A job of a task that prefers the service thread (``ServiceExecutor``).
    case run(UnownedJob)
}

/// The service-thread side of one ``WebServer``: owns the sessions and answers lws callbacks.
///
/// Thread-safety: immutable configuration, a locked ``ServiceMailbox`` for other threads, and
/// session state behind ``ServiceThreadBound`` (checked to be the service thread).
final class ServerEngine: Sendable {
    typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    typealias UpgradeHandler = @Sendable (HTTPRequest, WebSocketConnection) -> WebSocketUpgrade

    let configuration: WebServer.Configuration
    let handler: Handler
    let upgradeHandler: UpgradeHandler?
    let mailbox = ServiceMailbox<ServerMessage>()
    /// Runs handlers' tasks on the service thread (``WebServer/Configuration/handlesRequestsOnServiceThread``).
    let executor: ServiceExecutor
    let bound = ServiceThreadBound(ServerSessionTable())
    /// Lower-cased extra header names, computed once.
    let extraHeaderNames: [String]

    init(configuration: WebServer.Configuration, handler: @escaping Handler, upgradeHandler: UpgradeHandler?) {
        self.configuration = configuration
        self.handler = handler
        self.upgradeHandler = upgradeHandler
        extraHeaderNames = configuration.extraRequestHeaders.map { $0.lowercased() }
        executor = ServiceExecutor(mailbox: mailbox)
    }

    /// The session tables; service thread only.
    var table: ServerSessionTable { bound.value }

    /// Routes one lws callback. Returns what the protocol callback must return.
    func handle(
        wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int
    )
        -> Int32
    {
        table.eventPipeReclaim?.reclaim()
        switch reason {
        case LWS_CALLBACK_HTTP: return onRequestHead(wsi)
        case LWS_CALLBACK_HTTP_BODY: return onRequestBody(wsi, bytes: input, count: length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION: return onRequestBodyComplete(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE: return onHTTPWritable(wsi)
        case LWS_CALLBACK_CLOSED_HTTP: return onClosed(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: return onConfirmUpgrade(wsi, protocolName: input)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return onFilterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED: return onWebSocketEstablished(wsi)
        case LWS_CALLBACK_RECEIVE: return onWebSocketReceive(wsi, bytes: input, count: length)
        case LWS_CALLBACK_RECEIVE_PONG: return onWebSocketPong(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: return onWebSocketPeerClose(wsi)
        case LWS_CALLBACK_SERVER_WRITEABLE: return onWebSocketWritable(wsi)
        case LWS_CALLBACK_CLOSED, LWS_CALLBACK_RAW_CLOSE: return onClosed(wsi)
        case LWS_CALLBACK_WSI_DESTROY:
            table.acceptor?.connectionClosed(wsi)
            return onClosed(wsi)
        case LWS_CALLBACK_RAW_RX: return onUnknownMethod(wsi, bytes: input, count: length)
        case LWS_CALLBACK_RAW_WRITEABLE: return onUnknownMethodWritable(wsi)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED: return onWake()
        default: return 0
        }
    }

    /// The session whose id the wsi carries, if it is still alive.
    func session(for wsi: OpaquePointer) -> ServerSession? {
        guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
        return table.sessions[UInt64(UInt(bitPattern: raw))]
    }

    /// A new session for `wsi`, replacing any previous one.
    func makeSession(for wsi: OpaquePointer) -> ServerSession {
        let table = self.table
        if let old = session(for: wsi) { table.sessions[old.id] = nil }
        let session = ServerSession(
            id: table.makeID(), wsi: wsi, maxMessageBytes: configuration.maxWebSocketMessageBytes)
        table.sessions[session.id] = session
        lws_set_opaque_user_data(wsi, UnsafeMutableRawPointer(bitPattern: UInt(session.id)))
        return session
    }

    /// Drops the session of a closing wsi; a WebSocket delegate hears about it once.
    private func onClosed(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        table.sessions[session.id] = nil
        table.deadlines?.cancel(session.id)
        lws_set_opaque_user_data(wsi, nil)
        if let connection = session.webSocket {
            table.keepalive?.close(session.id)
            table.closedSinceTrim += 1
            if connection.outbox.markClosed() { session.delegate?.webSocketDidClose(connection) }
            goingAwaySocketClosed(session.id)
        }
        session.delegate = nil
        return 0
    }

    /// Drains the mailbox after `lws_cancel_service`, and ends the loop once a stop was requested.
    private func onWake() -> Int32 {
        if mailbox.isStopRequested {
            table.loop?.stop()
            return 0
        }
        // Until nothing is left: what the messages handled post (a job's next job, a handler's answer) is handled
        // in this same turn, without another wake-up. A bounded number of rounds, so that sockets get served too.
        var rounds = 0
        while true {
            let messages = mailbox.drain()
            if messages.isEmpty { return 0 }
            rounds += 1
            if rounds > Self.wakeRounds {
                mailbox.requeueAndWake(messages)
                return 0
            }
            handle(messages)
        }
    }

    /// Rounds of messages one wake-up handles before the loop serves its sockets again.
    static let wakeRounds = 8

    private func handle(_ messages: [ServerMessage]) {
        for message in messages {
            switch message {
            case .response(let id, let response):
                // The wsi may be gone (peer closed while the handler ran): then the id finds nothing. Shutting
                // down, responses still being computed are dropped (``WebServer/shutdown(closingWebSocketsWith:reason:within:)``).
                guard !isGoingAway, let session = table.sessions[id], session.phase == .awaitingHandler else {
                    continue
                }
                if response.closesConnection {
                    // `HTTPResponse.closeConnection`: lws closes the wsi on its next service turn, unanswered.
                    lws_set_timeout(session.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
                    continue
                }
                startResponse(response, for: session)
            case .dispatch(let id):
                guard let session = table.sessions[id], session.phase == .dispatching else { continue }
                if dispatch(session) != 0 {
                    lws_set_timeout(session.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
                }
            case .writable(let id):
                guard let session = table.sessions[id], session.webSocket != nil else { continue }
                lws_callback_on_writable(session.wsi)
            case .goAway(let status, let ticks):
                beginGoingAway(status, withinTicks: ticks)
            case .run(let job):
                job.runSynchronously(on: executor.asUnownedTaskExecutor())
            }
        }
    }
}
