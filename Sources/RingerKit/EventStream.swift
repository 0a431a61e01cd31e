public import Foundation
import RingerSync
public import RingerWire

/// Opens WebSockets for the event stream: ``URLSessionWebSocketTransport`` on Apple platforms;
/// on Linux the simulator supplies one over libwebsockets.
public protocol WebSocketTransport: Sendable {
    /// Connects, then reports each text frame and the close.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL with query.
    ///   - headers: request headers (authorization).
    ///   - onText: called for each text frame, in order.
    ///   - onClose: called once when the connection ends for any reason.
    /// - Returns: the open channel.
    /// - Throws: when the connection cannot be opened.
    func connect(url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
                 onClose: @escaping @Sendable () -> Void) async throws -> any WebSocketChannel
}

/// An open WebSocket.
public protocol WebSocketChannel: Sendable {
    /// Closes the connection; `onClose` follows.
    func close()
}

/// The server's event stream for one device, kept open: reconnects with exponential backoff and
/// jitter, and resumes from the last `seq` seen so nothing is lost while the socket was down.
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
    }

    private let api: RingerAPIClient
    private let deviceID: String
    private let transport: any WebSocketTransport
    private let onEvent: @Sendable (CallEvent) -> Void
    private let onStatus: @Sendable (Status) -> Void
    private let onResumePoint: @Sendable (Int64) -> Void
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
    public init(api: RingerAPIClient, deviceID: String, transport: any WebSocketTransport,
                onEvent: @escaping @Sendable (CallEvent) -> Void,
                onStatus: @escaping @Sendable (Status) -> Void = { _ in },
                onResumePoint: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.api = api
        self.deviceID = deviceID
        self.transport = transport
        self.onEvent = onEvent
        self.onStatus = onStatus
        self.onResumePoint = onResumePoint
    }

    /// Where the stream resumes after a drop: the highest event `seq` received, or the server's
    /// resume point if that is newer (the server tells a fresh connection where it went live, so an app
    /// that never received an event still replays what it misses). Persist it and pass it to
    /// ``start(since:)`` after a relaunch.
    public var lastSeq: Int64? { state.withLock { $0.resumeSeq } }

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
            }
            return (state.channel, state.loop, state.stopped)
        }
        loop?.cancel()
        channel?.close()
        if !wasStopped { onStatus(.closed) }   // once, however often stop() is called
    }

    private func run() async {
        var failures = 0
        var wasConnected = false
        while !Task.isCancelled, !state.withLock({ $0.stopped }) {
            let closed = AsyncStream<Void>.makeStream()
            let url = api.eventsURL(deviceID: deviceID, since: lastSeq)
            do {
                let channel = try await transport.connect(
                    url: url, headers: api.authorizationHeaders,
                    onText: { [weak self] text in self?.receive(text) },
                    onClose: { closed.continuation.finish() })
                let keep = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.channel = channel
                    return true
                }
                guard keep else { channel.close(); return }
                failures = 0
                onStatus(wasConnected ? .restored : .connected)
                wasConnected = true
                for await _ in closed.stream {}
            } catch {
                failures += 1
            }
            guard !state.withLock({ $0.stopped }) else { return }
            let delay = Self.backoff(failures: failures)
            onStatus(.lost(retryIn: delay))
            try? await Task.sleep(for: .seconds(delay))
            failures = max(failures, 1)
        }
    }

    /// Reconnect delays: 0.125…0.25 s after a drop, doubling per failed attempt, at most 30 s.
    static let reconnectBackoff = RetryBackoff(initialDelay: 0.25, maximumDelay: 30)

    /// The wait before the next connection attempt after `failures` failed ones, seconds.
    static func backoff(failures: Int) -> TimeInterval {
        reconnectBackoff.delay(beforeRetry: failures + 1)
    }

    private func receive(_ text: String) {
        let data = Data(text.utf8)
        if let ready = try? RingerJSON.decode(StreamReady.self, from: data), ready.type == .streamReady {
            let moved = state.withLock { state -> Int64? in
                let before = state.resumeSeq
                state.readySeq = max(state.readySeq ?? ready.seq, ready.seq)
                return state.resumeSeq != before ? state.resumeSeq : nil
            }
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
    public convenience init(api: RingerAPIClient, deviceID: String, onEvent: @escaping @Sendable (CallEvent) -> Void,
                            onStatus: @escaping @Sendable (Status) -> Void = { _ in },
                            onResumePoint: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.init(api: api, deviceID: deviceID, transport: URLSessionWebSocketTransport(), onEvent: onEvent,
                  onStatus: onStatus, onResumePoint: onResumePoint)
    }
}
#endif
