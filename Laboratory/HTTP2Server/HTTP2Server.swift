public import RingerHTTP
import RingerSupport

/// A small HTTP/2-over-TLS server for tests and sandboxes (the APNs sandbox): it hands every request, with
/// all its header fields, to an async handler and writes back the returned response.
///
/// libnghttp2 does HTTP/2 (framing, HPACK, flow control, message checks) and OpenSSL does TLS (1.2 or newer,
/// ALPN "h2" only: RFC 9113 §3.2, §9.2). One thread accepts; each connection has its own thread running a
/// `poll` loop. Handlers run on Swift concurrency, so a slow or never-answering stream holds up nothing else.
/// The fault-injection hooks (``setMaxConcurrentStreams(_:)``, ``sendGoAway(afterStreams:connections:)``,
/// ``closeConnections(afterStreams:connections:)``, ``closeAllConnections()``) let tests reproduce what a real server does to its clients.
///
/// Requests: header names arrive lower-cased (RFC 9113 §8.2.1); a repeated field is joined with ", "
/// (`cookie` with "; ", §8.2.3); `:authority` also appears as `host` when the client sent no `host`; trailer
/// fields are not kept. The body ends with END_STREAM, so no `content-length` is needed.
/// Responses: the server adds `:status` and `content-length`; it drops handler fields that HTTP/2 forbids
/// (connection-specific ones, §8.2.2) or that fail nghttp2's field checks, and turns a status outside
/// 200…999 into an empty 500.
///
/// Thread-safety: all methods may be called from any thread or task, concurrently.
/// Logging: the server logs nothing, so header values such as `authorization` never reach a log.
public final class HTTP2Server: Sendable {
    private enum Lifecycle {
        case idle
        case running(context: ServerContext, listener: Listener, acceptor: Acceptor, thread: NativeThread)
        case shutDown
    }

    private let configuration: Configuration
    private let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    private let controls: LockedValue<ServerContext.Controls>
    private let counters = LockedValue(Statistics())
    private let lifecycle = LockedValue(Lifecycle.idle)
    // Held for a whole shutdown, so a concurrent second call returns only once the first one finished.
    private let shutdownGate = LockedValue(())

    /// Creates a server; nothing is bound until ``start()``.
    /// - Parameters:
    ///   - configuration: Address, certificate and limits.
    ///   - handler: Answers one request. It runs as its own task per stream, concurrently with others; the
    ///     task is cancelled when the client resets the stream or the connection closes, and then its result
    ///     is dropped. ``RingerHTTP/HTTPResponse/closeConnection`` cuts the request's connection unanswered.
    public init(configuration: Configuration, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.configuration = configuration
        self.handler = handler
        controls = LockedValue(ServerContext.Controls(maxConcurrentStreams: configuration.maxConcurrentStreams))
    }

    deinit {
        shutdown()
    }

    /// Loads the certificate, binds, and starts accepting connections.
    /// - Returns: The bound TCP port (the ephemeral one when the configuration asked for port 0).
    /// - Throws: ``HTTP2ServerError``: invalid configuration, TLS setup (certificate or key), socket
    ///   (`getaddrinfo`, `bind`, `listen`, ...), ``HTTP2ServerError/alreadyStarted`` or
    ///   ``HTTP2ServerError/shutDown``.
    @discardableResult
    public func start() throws -> Int {
        try lifecycle.withLock { state in
            switch state {
            case .running: throw HTTP2ServerError.alreadyStarted
            case .shutDown: throw HTTP2ServerError.shutDown
            case .idle: break
            }
            try configuration.validate()
            let tls = try TLSContext(
                certificatePath: configuration.certificatePath,
                privateKeyPath: configuration.privateKeyPath,
                clientCAPath: configuration.clientCAPath)
            let listener = try Listener.open(host: configuration.host, port: configuration.port)
            let context = ServerContext(
                configuration: configuration, handler: handler, tls: tls, controls: controls,
                counters: counters)
            do {
                let acceptor = try Acceptor(listener: listener, context: context)
                switch NativeThread.start({ acceptor.run() }) {
                case .success(let thread):
                    state = .running(context: context, listener: listener, acceptor: acceptor, thread: thread)
                case .failure(let error):
                    acceptor.close()
                    throw error
                }
            } catch {
                listener.close()
                throw error
            }
            return listener.port
        }
    }

    /// Stops the server: closes the listener, ends every connection (GOAWAY and close_notify on a
    /// best-effort basis) and joins all threads, so the port is free when it returns. Handlers still running
    /// are cancelled and their results dropped; nothing waits for them. Idempotent; also called on deinit.
    public func shutdown() {
        shutdownGate.withLock { _ in
            let running: (ServerContext, Listener, Acceptor, NativeThread)? = lifecycle.withLock { state in
                defer { state = .shutDown }
                guard case .running(let context, let listener, let acceptor, let thread) = state else { return nil }
                return (context, listener, acceptor, thread)
            }
            guard let (context, listener, acceptor, thread) = running else { return }
            acceptor.stop()
            thread.join()
            acceptor.close()
            listener.close()
            let connections = context.stopAccepting()
            for connection in connections { connection.mailbox.post(.stop) }
            for connection in connections { connection.thread.join() }
        }
    }

    /// Advertises a new SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §6.5.2): a SETTINGS frame goes to every open
    /// connection now, and new connections start with it. Streams beyond a limit the client already
    /// acknowledged are a protocol error that nghttp2 answers with GOAWAY(PROTOCOL_ERROR); before the
    /// acknowledgement they are refused with RST_STREAM(REFUSED_STREAM).
    /// - Parameter limit: Streams per connection, clamped to 0…2³¹−1.
    public func setMaxConcurrentStreams(_ limit: Int) {
        let value = min(max(limit, 0), Int(Int32.max))
        controls.withLock { $0.maxConcurrentStreams = value }
        for mailbox in runningContext()?.mailboxes() ?? [] { mailbox.post(maxConcurrentStreams: value) }
    }

    /// Makes each connection say goodbye after a number of requests: the request that reaches the count is
    /// served, and GOAWAY (NO_ERROR) with its stream as last-stream-id is sent at once (RFC 9113 §6.8). Later
    /// streams are refused (REFUSED_STREAM); requests already accepted are still answered, then the
    /// connection closes. A connection that already served more requests says goodbye at its next request.
    /// - Parameters:
    ///   - count: Requests per connection (0 refuses the first one), or nil to turn this off.
    ///   - connections: How many connections say goodbye before the hook wears off (each one that reaches
    ///     `count` uses one); nil for every connection.
    public func sendGoAway(afterStreams count: Int?, connections: Int? = nil) {
        controls.withLock { controls in
            controls.goAwayAfterRequests = count.map { max($0, 0) }
            controls.goAwayConnectionsLeft = connections.map { max($0, 0) }
        }
    }

    /// Cuts connections after a number of requests, as a crashing server would: when a connection's request
    /// number `count + 1` arrives, that request is never processed and the TCP connection is closed at once,
    /// without GOAWAY or TLS close_notify. Requests still being handled get no answer; answers already
    /// queued may be lost with the connection.
    /// - Parameters:
    ///   - count: Requests a connection may carry before it is cut (0 cuts at the first request), or nil to
    ///     turn this off.
    ///   - connections: How many connections are cut before the hook wears off; nil for every connection.
    public func closeConnections(afterStreams count: Int?, connections: Int? = 1) {
        controls.withLock { controls in
            controls.closeAtRequest = count.map { max($0, 0) }
            controls.closeConnectionsLeft = connections.map { max($0, 0) }
        }
    }

    /// How many more connections the GOAWAY hook may still affect: 0 once it wore off, nil when it
    /// affects every connection or is off (``sendGoAway(afterStreams:connections:)``). Thread-safe.
    public var goAwayConnectionsLeft: Int? {
        controls.withLock { $0.goAwayConnectionsLeft }
    }

    /// How many more connections the cut hook may still cut: 0 once it wore off, nil when it cuts every
    /// connection or is off (``closeConnections(afterStreams:connections:)``). Thread-safe.
    public var closeConnectionsLeft: Int? {
        controls.withLock { $0.closeConnectionsLeft }
    }

    /// What the server counted since it was created; lets tests see whether a client reconnected or had
    /// streams refused. Thread-safe.
    public var statistics: Statistics {
        counters.withLock { $0 }
    }

    /// Closes every open TCP connection at once, without GOAWAY or TLS close_notify, as a crashed or
    /// unplugged server would. The listener keeps accepting new connections.
    public func closeAllConnections() {
        for mailbox in runningContext()?.mailboxes() ?? [] { mailbox.post(.abort) }
    }

    private func runningContext() -> ServerContext? {
        lifecycle.withLock { state in
            if case .running(let context, _, _, _) = state { return context }
            return nil
        }
    }
}
