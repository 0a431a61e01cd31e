import RingerHTTP

/// The state of one HTTP/1 connection or HTTP/2 stream (one wsi) of a ``WebServer``.
/// Service thread only.
///
/// The wsi carries the session id in its opaque user data, never a pointer to this object, so a
/// late handler response finds the session by id or not at all, and is never written to a wsi
/// that lws has freed and reused.
final class ServerSession {
    /// Where the current HTTP transaction stands.
    enum Phase {
        /// Between requests (HTTP/1 keep-alive) or not started.
        case idle
        /// Collecting the request body.
        case readingBody
        /// The body is complete; the handler starts on the next loop turn (``ServerMessage/dispatch(session:)``),
        /// once lws has shown whether another request is pipelined behind it.
        case dispatching
        /// The handler runs on Swift concurrency.
        case awaitingHandler
        /// The response is being written.
        case writing
    }

    let id: UInt64
    let wsi: OpaquePointer
    var phase = Phase.idle
    /// The request head (body accumulates in `body`).
    var request: HTTPRequest?
    var body: [UInt8] = []
    /// Whether the peer may still be sending body bytes we will not read.
    var bodyIncomplete = false
    /// HTTP/1: close the connection after this response instead of keeping it alive.
    var closesAfterResponse = false
    /// Body completions lws reported again before the handler started: each means pipelined bytes (see
    /// ``ServerEngine/onRequestBodyComplete(_:)``).
    var repeatedCompletions = 0
    var writer: ResponseWriter?

    /// Set once the upgrade was accepted.
    var webSocket: WebSocketConnection?
    var delegate: (any WebSocketDelegate)?
    var frameWriter = WebSocketFrameWriter()
    /// The keepalive wheel asked for a PING, to be written on the next writable callback.
    var pingDue = false
    var assembler: MessageAssembler

    init(id: UInt64, wsi: OpaquePointer, maxMessageBytes: Int) {
        self.id = id
        self.wsi = wsi
        assembler = MessageAssembler(limit: maxMessageBytes)
    }
}

/// Everything a server's service thread owns.
final class ServerSessionTable {
    var sessions: [UInt64: ServerSession] = [:]
    /// The libuv loop and the wrapper's handles on it, while the loop runs.
    var loop: ServiceLoop?
    /// The lws vhost that adopts accepted connections.
    var vhost: OpaquePointer?
    var acceptor: ConnectionAcceptor?
    /// The body deadline of every request whose body is being read (``WebServer/Configuration/requestDeadlineSeconds``).
    var deadlines: DeadlineWheel?
    /// PING and idle hang-up of every open WebSocket, when ``WebServer/Configuration/webSocketPingSeconds`` is set.
    var keepalive: KeepaliveWheel?
    /// The graceful shutdown, once it began.
    var goingAway: GoingAwayPhase?
    /// Guards the event pipe's number while the context is destroyed (``EventPipeReclaim``).
    var eventPipeReclaim: EventPipeReclaim?
    /// WebSockets closed since the heap was last trimmed, and when that was (loop seconds).
    var closedSinceTrim = 0
    var lastTrim = 0
    /// The last loop second whose once-a-second work (wake-up, trim) ``ServerEngine/tick()`` did.
    var lastSecond = 0
    /// Whether the last trim followed a wave of closes and one more is due an interval later.
    var trimFollowUpDue = false
    private var lastID: UInt64 = 0
    /// Shared write buffer: header blocks and one chunk at a time.
    let scratch = ScratchBuffer(capacity: 64 * 1024)

    /// A fresh, never reused id.
    func makeID() -> UInt64 {
        lastID += 1
        return lastID
    }
}
