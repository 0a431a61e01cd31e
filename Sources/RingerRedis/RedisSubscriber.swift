public import Foundation
public import RingerSupport
import SocketSupport

/// Receives Redis pub/sub messages (`SUBSCRIBE`) on its own connection and thread, staying subscribed
/// across connection loss.
///
/// ```swift
/// let subscriber = try RedisSubscriber(url: url, channels: ["calls"],
///                                      onMessage: { channel, payload in … },
///                                      onStatus: { status in … })
/// subscriber.start()
/// subscriber.subscribe(["calls:node-2"])
/// subscriber.stop()
/// ```
/// On loss it reports ``Status/lost(_:)``, reconnects after a jittered exponential backoff (`backoff`),
/// logs in (`AUTH`; pub/sub channels are not per database, so no `SELECT`) and subscribes to the channels
/// wanted then, reporting ``Status/connected`` once Redis confirmed them all: each `connected` after the
/// first means messages may have been missed. When Redis is silent for `healthCheckInterval` seconds it
/// is sent a PING; silence for another interval counts as loss (a peer gone without closing TCP).
///
/// Callbacks run on the subscriber's thread, one at a time, in the order Redis sent the messages; keep them
/// short (Redis drops a subscriber that falls megabytes behind). They may call every method here,
/// `stop()` included. Thread-safe.
public final class RedisSubscriber: Sendable {
    /// Where it connects.
    public let url: RedisURL
    private let control: SubscriberControl
    private let loop: SubscriberLoop

    /// Creates the subscriber, not yet running.
    /// - Parameters:
    ///   - url: server and login.
    ///   - channels: channels to subscribe to (more can be added while running).
    ///   - connectTimeout: seconds to connect and log in.
    ///   - healthCheckInterval: seconds of silence before a PING, and again before giving the connection up.
    ///   - backoff: waits between reconnect attempts (seconds).
    ///   - onMessage: a message: its channel and payload bytes.
    ///   - onStatus: ``Status/connected`` or ``Status/lost(_:)``.
    /// - Throws: ``RedisError/system(reason:)`` when the thread's wake-up pipe cannot be made (no
    ///   descriptors left).
    public init(
        url: RedisURL, channels: some Sequence<String> = [], connectTimeout: TimeInterval = 5,
        healthCheckInterval: TimeInterval = 10,
        backoff: Backoff = Backoff(initialDelay: 0.25, maximumDelay: 10),
        onMessage: @escaping @Sendable (_ channel: String, _ payload: Data) -> Void,
        onStatus: @escaping @Sendable (_ status: Status) -> Void
    ) throws(RedisError) {
        self.url = url
        control = try SubscriberControl(channels: Set(channels))
        loop = SubscriberLoop(
            url: url, connectTimeout: connectTimeout, healthCheckInterval: healthCheckInterval,
            backoff: backoff, control: control, onMessage: onMessage, onStatus: onStatus)
    }

    deinit {
        // The thread holds the loop and control, not the subscriber: ask it to end, without waiting here.
        control.state.withLock { $0.stopping = true }
        control.wake()
    }

    /// Starts the thread; it connects at once. Does nothing if already started or stopped.
    public func start() {
        let starting = control.state.withLock { state -> Bool in
            guard !state.started, !state.stopping else { return false }
            state.started = true
            return true
        }
        guard starting else { return }
        let control = control
        let loop = loop
        control.finished.enter()
        let thread = Thread {
            control.state.withLock { $0.loopThread = LoopThread() }
            loop.run()
            control.finished.leave()
        }
        thread.name = "redis-subscriber"
        thread.start()
    }

    /// Adds channels; sent to Redis at once when connected, and on every reconnect.
    public func subscribe(_ channels: some Sequence<String>) {
        control.state.withLock { $0.channels.formUnion(channels) }
        control.wake()
    }

    /// Removes channels; their messages stop being delivered at once.
    public func unsubscribe(_ channels: some Sequence<String>) {
        control.state.withLock { $0.channels.subtract(channels) }
        control.wake()
    }

    /// The channels wanted now.
    public var channels: Set<String> { control.channels }

    /// Ends the thread and closes the connection; no callback runs after it returns. Waits for a running
    /// callback to return, then a few milliseconds: every wait of the thread (connect, `AUTH`, reading,
    /// backoff) also watches the stop request. Called from a callback, it returns at once and the thread
    /// ends when that callback returns. Idempotent; a stopped subscriber cannot start again.
    public func stop() {
        let (started, onOwnThread) = control.state.withLock { state in
            state.stopping = true
            return (state.started, state.loopThread?.isCurrent ?? false)
        }
        control.wake()
        if started, !onOwnThread { control.finished.wait() }
    }
}
