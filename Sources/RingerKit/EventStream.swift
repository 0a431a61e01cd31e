public import Foundation
import RingerSupport
public import RingerWire

/// Opens WebSockets for the event stream: ``URLSessionWebSocketTransport`` on Apple platforms;
/// on Linux the simulator supplies one over libwebsockets.
public protocol WebSocketTransport: Sendable {
    /// Connects, then reports each text frame and the close.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL with query.
    ///   - headers: request headers (authorization).
    ///   - onText: called for each text frame, in order.
    ///   - onClose: called once when the open connection ends for any reason, with its close code and
    ///     reason (RFC 6455 §7.1.5; ``WebSocketClose/abnormal`` when it dropped without a close frame).
    /// - Returns: the open channel.
    /// - Throws: ``WebSocketUpgradeRefused`` when the server answered the upgrade with an HTTP status
    ///   other than 101 and the transport can read it; any other error when the connection cannot be opened.
    func connect(
        url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (WebSocketClose) -> Void
    ) async throws -> any WebSocketChannel
}

/// An open WebSocket.
public protocol WebSocketChannel: Sendable {
    /// Closes the connection; `onClose` follows.
    func close()
}

/// The server's event stream for one device, kept open: reconnects with exponential backoff and
/// jitter, and resumes from the last `seq` seen so nothing is lost while the socket was down. It stops on
/// its own when a newer connection of the same device replaced it (close code 4001: reconnecting would
/// replace that one in turn, forever) or when the server refuses the token (401); see
/// ``Status/replaced`` and ``Status/unauthorized``.
///
/// Thread-safe. Events are delivered in order on an internal task.
public final class EventStream: Sendable {
    /// The connection state, for the app's UI ("reconnecting…").
    public enum Status: Sendable, Equatable {
        /// Connected and receiving (the first connection).
        case connected
        /// The socket dropped, or an attempt failed; a new attempt follows after `retryIn` seconds. An
        /// active call goes on (its media does not use this socket); events wait on the server.
        case lost(retryIn: TimeInterval)
        /// Connected again after ``lost(retryIn:)``: what happened meanwhile is being replayed from the
        /// resume point (``lastSeq``), so the app need not refetch its calls.
        case restored
        /// Stopped by ``stop()``.
        case closed
        /// Stopped because another connection of this device took over (the server closed this socket
        /// with 4001: one socket per device id, the newest wins). Usually an app extension or a second
        /// stream of the app with the same device id; call ``start(since:)`` again to take the socket back.
        case replaced
        /// Stopped because the server refused the user token (HTTP 401 at the upgrade): get a new token
        /// and create a stream with a client that carries it.
        case unauthorized
        /// The server closed the socket with 1009 (a message from this client over its limit): a bug in
        /// the client worth reporting. A new attempt follows after `retryIn` seconds, as for ``lost(retryIn:)``.
        case messageTooBig(retryIn: TimeInterval)
        /// Stopped because the server refused the upgrade with another 4xx status (422: a `device_id` it
        /// does not accept; 404: a wrong URL): a bug in the app or its set-up; the same request would be
        /// refused again.
        case refused(httpStatus: Int)
    }

    private struct State {
        /// The highest event `seq` received: older or repeated events are dropped.
        var lastSeq: Int64?
        /// Where the server said the stream went live (``StreamReady``); may be ahead of `lastSeq`
        /// when events for other devices were skipped, or when none has arrived yet.
        var readySeq: Int64?
        /// The `since` of the next connection.
        var resumeSeq: Int64? {
            guard let readySeq else { return lastSeq }
            return max(lastSeq ?? readySeq, readySeq)
        }
        var channel: (any WebSocketChannel)?
        var loop: Task<Void, Never>?
        var stopped = false
        /// From this connection's `stream.ready` until its socket closes.
        var live = false
    }

    private let api: RingerAPIClient
    private let deviceID: String
    private let transport: any WebSocketTransport
    private let onEvent: @Sendable (CallEvent) -> Void
    private let onStatus: @Sendable (Status) -> Void
    private let onResumePoint: @Sendable (Int64) -> Void
    private let onServerTime: @Sendable (Date) -> Void
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private let state = LockedValue(State())

    /// Creates the stream; nothing connects until ``start(since:)``.
    /// - Parameters:
    ///   - api: the logged-in user's client (gives the URL and credentials).
    ///   - deviceID: this device's id.
    ///   - transport: how to open WebSockets.
    ///   - onEvent: each event, in `seq` order.
    ///   - onStatus: connection state changes.
    ///   - onResumePoint: ``lastSeq`` moved forward (an event, or the server's resume point); persist it
    ///     for the user and pass it to ``start(since:)`` after a relaunch.
    ///   - onServerTime: the server's clock as `stream.ready` told it (`server_time_ms`), called as the frame
    ///     is read; pass it to ``CallCoordinator/serverTimeObserved(_:)``, which judges ring deadlines on it.
    ///   - sleep: waits a number of seconds before a reconnect (the app's clock; real time by default); must
    ///     throw or return early when its task is cancelled.
    ///   - random: a number in `0...1` for the reconnect backoff's jitter; random by default.
    public init(
        api: RingerAPIClient, deviceID: String, transport: any WebSocketTransport,
        onEvent: @escaping @Sendable (CallEvent) -> Void,
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        onResumePoint: @escaping @Sendable (Int64) -> Void = { _ in },
        onServerTime: @escaping @Sendable (Date) -> Void = { _ in },
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.api = api
        self.deviceID = deviceID
        self.transport = transport
        self.onEvent = onEvent
        self.onStatus = onStatus
        self.onResumePoint = onResumePoint
        self.onServerTime = onServerTime
        self.sleep = sleep
        reconnect = EventStreamReconnect(random: random)
    }

    /// Where the stream resumes after a drop: the highest event `seq` received, or the server's
    /// resume point if that is newer (the server tells a fresh connection where it went live, so an app
    /// that never received an event still replays what it misses). Persist it and pass it to
    /// ``start(since:)`` after a relaunch.
    public var lastSeq: Int64? { state.withLock { $0.resumeSeq } }

    /// Whether live events reach this stream now: true from the current connection's `stream.ready` (the server
    /// has subscribed the socket and replayed what it missed) until that socket closes or ``stop()``. An app can
    /// show "connected" on it; tests wait for it before they place a call.
    public var isLive: Bool { state.withLock { $0.live } }

    /// Connects and keeps the stream open until ``stop()``.
    /// - Parameter since: resume after this `seq` (e.g. persisted from a previous launch).
    public func start(since: Int64? = nil) {
        state.withLock { state in
            guard state.loop == nil, !state.stopped else { return }
            state.lastSeq = since ?? state.lastSeq
            state.loop = Task { [weak self] in await self?.run() }
        }
    }

    /// Closes the stream for good.
    public func stop() {
        let (channel, loop, wasStopped) = state.withLock { state in
            defer {
                state.stopped = true
                state.channel = nil
                state.live = false
            }
            return (state.channel, state.loop, state.stopped)
        }
        loop?.cancel()
        channel?.close()
        if !wasStopped { onStatus(.closed) }  // once, however often stop() is called
    }

    private func run() async {
        var failures = 0
        var wasConnected = false
        while !Task.isCancelled, !state.withLock({ $0.stopped }) {
            let closed = AsyncStream<WebSocketClose>.makeStream()
            let url = api.eventsURL(deviceID: deviceID, since: lastSeq)
            let ending: EventStreamReconnect.Ending
            do {
                let channel = try await transport.connect(
                    url: url, headers: api.authorizationHeaders,
                    onText: { [weak self] text in self?.receive(text) },
                    onClose: { close in
                        closed.continuation.yield(close)
                        closed.continuation.finish()
                    })
                let keep = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.channel = channel
                    return true
                }
                guard keep else {
                    channel.close()
                    return
                }
                failures = 0
                onStatus(wasConnected ? .restored : .connected)
                wasConnected = true
                var close = WebSocketClose.abnormal
                for await reported in closed.stream { close = reported }
                state.withLock { $0.live = false }
                ending = .closed(close)
            } catch let refused as WebSocketUpgradeRefused {
                failures += 1
                ending = .refused(httpStatus: refused.status)
            } catch {
                failures += 1
                ending = .failed
            }
            switch reconnect.decide(ending, failures: failures) {
            case .stop(let status):
                // The loop ends here; clearing it lets the app start again (even from `onStatus`).
                let report = state.withLock { state -> Bool in
                    state.loop = nil
                    state.channel = nil
                    return !state.stopped
                }
                if report { onStatus(status) }
                return
            case .reconnect(let delay, let status):
                guard !state.withLock({ $0.stopped }) else { return }
                onStatus(status)
                try? await sleep(delay)
                failures = max(failures, 1)
            }
        }
    }

    /// When to reconnect, by how the connection ended.
    private let reconnect: EventStreamReconnect

    private func receive(_ text: String) {
        let data = Data(text.utf8)
        if let ready = try? RingerJSON.decode(StreamReady.self, from: data), ready.type == .streamReady {
            let moved = state.withLock { state -> Int64? in
                let before = state.resumeSeq
                state.readySeq = max(state.readySeq ?? ready.seq, ready.seq)
                state.live = !state.stopped
                return state.resumeSeq != before ? state.resumeSeq : nil
            }
            if let serverTimeMs = ready.serverTimeMs { onServerTime(Date(unixMilliseconds: serverTimeMs)) }
            if let moved { onResumePoint(moved) }
            return
        }
        guard let event = try? RingerJSON.decode(CallEvent.self, from: data) else { return }
        // Whether the event is new and whether the resume point moved are separate questions: an event
        // that was already on its way when the server sent `stream.ready` has a `seq` at or below the
        // ready one, so it leaves the resume point where it is, yet it must still be delivered
        // (docs/openapi.yaml, GET /v1/events).
        let (isNew, movedTo) = state.withLock { state -> (Bool, Int64?) in
            guard event.seq > (state.lastSeq ?? .min) else { return (false, nil) }
            let before = state.resumeSeq
            state.lastSeq = event.seq
            return (true, state.resumeSeq != before ? state.resumeSeq : nil)
        }
        guard isNew else { return }
        onEvent(event)
        if let movedTo { onResumePoint(movedTo) }
    }
}

#if canImport(Darwin)
extension EventStream {
    /// Creates the stream over ``URLSessionWebSocketTransport``, the default on Apple platforms (on Linux
    /// pass a transport: Foundation's WebSocket task does not work there).
    /// - Parameters:
    ///   - api: the logged-in user's client (gives the URL and credentials).
    ///   - deviceID: this device's id.
    ///   - onEvent: each event, in `seq` order.
    ///   - onStatus: connection state changes.
    ///   - onResumePoint: ``lastSeq`` moved forward; persist it (see the designated initialiser).
    public convenience init(
        api: RingerAPIClient, deviceID: String, onEvent: @escaping @Sendable (CallEvent) -> Void,
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        onResumePoint: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        self.init(
            api: api, deviceID: deviceID, transport: URLSessionWebSocketTransport(), onEvent: onEvent,
            onStatus: onStatus, onResumePoint: onResumePoint)
    }
}
#endif
