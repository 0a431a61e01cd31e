import CLWS
import Foundation
public import RingerHTTP
import RingerSupport

/// An HTTP/1.1 server with WebSocket support, on libwebsockets, over TLS or not. It never speaks HTTP/2: an
/// `Upgrade: h2c` is ignored and TLS offers only `http/1.1` by ALPN (docs/decisions/0001-refuse-h2c-upgrade.md);
/// the project's HTTP/2 servers are nghttp2's (`HTTP2Server`).
///
/// One lws service thread per server does all socket work, on a libuv loop (lws' libuv plugin, so
/// idle sockets cost nothing per wake-up); the wrapper accepts connections itself and hands them to lws. Each complete request is handed to
/// the async `handler` on Swift concurrency; its response is queued back to the service thread
/// and written there. WebSocket upgrades are decided synchronously on the service thread.
///
/// ```swift
/// let server = WebServer(configuration: .init(port: 0)) { request in
///     .json(#"{"path":"\#(request.path)"}"#)
/// }
/// let port = try server.start()
/// defer { server.shutdown() }
/// ```
///
/// Thread-safety: all methods may be called from any thread; `start()` and `shutdown()` block
/// the caller briefly (context creation, joining the service thread).
///
/// - Important: A request pipelined behind one with a body, or one with a body pipelined behind another, is never
///   run: the first answer says `connection: close`, or, when lws shows the pipelined bytes before the first
///   handler started, ``Configuration/pipelinedRequestResponse`` refuses it unrun (lws would otherwise loop in
///   `lws_http_action`).
public final class WebServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(port: Int)
        case stopped
    }

    private let engine: ServerEngine
    private let lifecycle = LockedValue(Lifecycle.idle)
    /// Entered while the service thread lives.
    private let serviceThreadDone = DispatchGroup()

    /// Creates a stopped server.
    /// - Parameters:
    ///   - configuration: Address, TLS and limits.
    ///   - handler: Answers each HTTP request; runs on Swift concurrency, may suspend as long as it
    ///     needs without blocking other requests. ``RingerHTTP/HTTPResponse/closeConnection`` closes the
    ///     request's connection (HTTP/1.1) or stream (HTTP/2) unanswered.
    ///   - webSocketHandler: Decides upgrades on ``Configuration/webSocketPaths``; called on the
    ///     service thread with the parsed request and the future connection. Must not block.
    ///     `nil` refuses every upgrade with 404.
    public init(
        configuration: Configuration,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        webSocketHandler: (@Sendable (HTTPRequest, WebSocketConnection) -> WebSocketUpgrade)? = nil
    ) {
        engine = ServerEngine(configuration: configuration, handler: handler, upgradeHandler: webSocketHandler)
    }

    deinit {
        shutdown()
    }

    /// Opens the listening socket and starts the service thread.
    /// - Returns: The bound TCP port (useful with port 0).
    /// - Throws: ``LibWebSocketsError/alreadyStarted`` on a second call,
    ///   ``LibWebSocketsError/invalidConfiguration`` for out-of-range settings,
    ///   ``LibWebSocketsError/contextCreationFailed`` when lws cannot listen or load the TLS files.
    @discardableResult
    public func start() throws -> Int {
        try lifecycle.withLock { state in
            guard case .idle = state else {
                throw LibWebSocketsError.alreadyStarted.with(function: "WebServer.start", detail: "called twice")
            }
            if let problem = self.engine.configuration.problem {
                throw LibWebSocketsError.invalidConfiguration.with(function: "WebServer.start", detail: problem)
            }
            state = .stopped  // until the context exists
        }
        LibWebSocketsLog.applyDefaultIfNeeded()
        let outcome = LockedValue<Result<Int, LibWebSocketsError>?>(nil)
        let started = DispatchSemaphore(value: 0)
        let engine = self.engine
        let configuration = engine.configuration
        serviceThreadDone.enter()
        let done = serviceThreadDone
        let thread = Thread {
            defer { done.leave() }
            engine.bound.claimForCurrentThread()
            let fail = { (function: String, detail: String) in
                outcome.withLock {
                    $0 = .failure(LibWebSocketsError.contextCreationFailed.with(function: function, detail: detail))
                }
                started.signal()
            }
            // Unreadable or unusable TLS files are refused here, before lws: lws 4.1.6 on a foreign loop fails such
            // a context by starting to destroy it itself (see below), which can close another thread's descriptors.
            if let tls = configuration.tls,
                let unreadable = [tls.certificatePath, tls.privateKeyPath].first(where: {
                    !FileManager.default.isReadableFile(atPath: $0)
                })
            {
                return fail("lws_create_context", "cannot read the TLS file \(unreadable)")
            }
            if let tls = configuration.tls,
                let problem = TLSFilesCheck.problem(
                    certificatePath: tls.certificatePath, privateKeyPath: tls.privateKeyPath)
            {
                return fail("lws_create_context", problem)
            }
            let listener: (descriptor: Int32, port: Int)
            do throws(ListenFailure) {
                listener = try ListenSocket.open(host: configuration.host, port: configuration.port)
            } catch {
                return fail("listen", "cannot listen on \(configuration.host):\(configuration.port): \(error.detail)")
            }
            let acceptor = ConnectionAcceptor(
                listenDescriptor: listener.descriptor,
                reportInterval: configuration.acceptFailureReportSeconds,
                maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
                capsLoopback: configuration.capsLoopbackConnections,
                maxConnections: configuration.maxConnections ?? Self.defaultConnectionBudget())
            guard let loop = ServiceLoop() else {
                acceptor.shutdown()
                return fail("uv_loop_init", "cannot create the event loop")
            }
            let resources = ContextResources()
            var info = engine.makeContextInfo(resources, loop: loop.loop)
            // With a foreign loop lws 4.1.6 returns a context it is already destroying when the default vhost
            // fails (TLS files it cannot use): no vhost then means failure too. That context has already closed
            // its event pipe, and turning the loop would run lws' close callback, which closes the descriptor a
            // second time: by then another thread may hold that number (a socket of another server), whose
            // context then trips lws' `insert_wsi` assertion. So the loop is not turned and the half-destroyed
            // context and loop are left as they are: a small leak on a start that failed.
            let eventPipe = EventPipeReclaim()
            let created = lws_create_context(&info)
            guard let context = created, lws_get_vhost_by_name(context, "default") != nil else {
                eventPipe?.release()
                acceptor.shutdown()
                if created == nil { loop.close() }
                return fail(
                    "lws_create_context",
                    configuration.tls == nil
                        ? "cannot create the context (is libwebsockets-evlib-uv installed?)"
                        : "cannot load the TLS certificate and key (or libwebsockets-evlib-uv is missing)")
            }
            eventPipe?.attach(to: loop.loop)
            engine.mailbox.attach(context: context)
            outcome.withLock { $0 = .success(listener.port) }
            started.signal()
            engine.runServiceLoop(context: context, loop: loop, acceptor: acceptor, eventPipe: eventPipe)
            withExtendedLifetime(resources) {}
        }
        thread.name = "lws-server"
        thread.start()
        started.wait()
        let port = try outcome.withLock { $0 }!.get()
        lifecycle.withLock { state in state = .running(port: port) }
        return port
    }

    /// The bound port while running, else `nil`.
    public var port: Int? {
        lifecycle.withLock { state in
            if case .running(let port) = state { return port }
            return nil
        }
    }

    /// The close frame ``shutdown(closingWebSocketsWith:reason:within:)`` sends by default: 1001 Going Away,
    /// "an endpoint is going away, such as a server going down" (RFC 6455 §7.4.1), so clients know to reconnect.
    public static let goingAwayCode: UInt16 = 1001
    /// The reason sent with ``goingAwayCode`` by default.
    public static let goingAwayReason = "server shutting down"
    /// The longest the graceful phase of ``shutdown(closingWebSocketsWith:reason:within:)`` lasts by default, in seconds.
    public static let goingAwaySeconds = 2.0

    /// Stops listening (new connections are refused at once, upgrades on open ones get 503), sends every open
    /// WebSocket a close frame with `code` and `reason` after the messages already queued on it, keeps serving
    /// until each peer answered with its own close frame (RFC 6455 §7.1.2; the socket then closes) or `seconds`
    /// passed, then closes every connection left (WebSocket delegates hear `webSocketDidClose`) and waits for
    /// the service thread to end. Responses still being computed are dropped, as are those finishing during
    /// the graceful phase. 19,000 sockets get their frames in well under a second (1,024 asked per loop turn).
    ///
    /// Idempotent; a second call during the graceful phase waits for the same end. Called from a delegate (the
    /// service thread itself) it returns without waiting.
    /// - Parameters:
    ///   - code: The close status, 1000–4999 (RFC 6455 §7.4); anything else sends 1000. Default 1001 Going Away.
    ///   - reason: A short UTF-8 text, cut to the 123 bytes a close frame holds (§5.5).
    ///   - seconds: The bound on the graceful phase, at most 3600; 0 (or less) closes every connection at once,
    ///     without close frames (peers see the TCP connection end, 1006).
    public func shutdown(
        closingWebSocketsWith code: UInt16 = WebServer.goingAwayCode,
        reason: String = WebServer.goingAwayReason, within seconds: Double = WebServer.goingAwaySeconds
    ) {
        lifecycle.withLock { $0 = .stopped }
        let bounded = seconds.isFinite ? min(max(seconds, 0), 3600) : 0
        let ticks = Int((bounded * Double(ServiceLoop.ticksPerSecond)).rounded(.up))
        // Without a running loop (not started, still starting, or over) nothing could be sent: stop as before.
        if ticks == 0 || !engine.mailbox.post(.goAway(.checked(code: code, reason: reason), ticks: ticks)) {
            engine.mailbox.requestStop()
        }
        guard !engine.bound.isOnOwnerThread else { return }
        serviceThreadDone.wait()
    }

    #if canImport(Glibc)
    private static let openFilesResource = Int32(RLIMIT_NOFILE.rawValue)
    #else
    private static let openFilesResource = RLIMIT_NOFILE
    #endif

    /// The connections a server holds at most when `--max-connections` is 0 and its process may open `fileLimit`
    /// descriptors: the limit less a reserve of 1/32 of it, at least 48 and at most 1024 (19,375 of 20,000). Past it,
    /// the connection slowest to send its request or read its answer is closed to make room.
    /// - Parameter fileLimit: the soft open-file limit (`RLIMIT_NOFILE`).
    /// - Returns: at least 1.
    public static func connectionBudget(forFileLimit fileLimit: Int) -> Int {
        ConnectionBudget.limit(forFileLimit: fileLimit)
    }

    /// The connection budget when none is configured: ``ConnectionBudget/limit(forFileLimit:)`` of the process's soft
    /// open-file limit (`RLIMIT_NOFILE`), read when the server starts; an unlimited or unreadable one counts as
    /// 1,048,576, Linux's default hard ceiling (`fs.nr_open`).
    static func defaultConnectionBudget() -> Int {
        var limit = rlimit()
        let ceiling = 1 << 20
        guard getrlimit(Self.openFilesResource, &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return ConnectionBudget.limit(forFileLimit: ceiling)
        }
        return ConnectionBudget.limit(forFileLimit: Int(min(UInt64(limit.rlim_cur), UInt64(ceiling))))
    }
}
