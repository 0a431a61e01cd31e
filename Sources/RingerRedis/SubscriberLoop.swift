import CHiredis
import Foundation
import RingerSupport
import SocketSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a ``RedisSubscriber``'s thread: connect, log in, subscribe, read messages; on failure wait
/// with backoff and start again, until stopped.
///
/// Everything waits in one `poll` on the socket and the control's wake pipe, with the hiredis context in
/// non-blocking mode, so `stop()` and channel changes take effect at once in every phase (connect, `AUTH`,
/// reading, backoff). Pub/sub commands follow https://redis.io/docs/latest/develop/interact/pubsub/
/// (RESP2 push arrays: `subscribe`, `unsubscribe`, `message`, `pong`).
final class SubscriberLoop: @unchecked Sendable {
    // @unchecked: the settings are immutable, the callbacks Sendable, `control` thread-safe; the hiredis
    // context exists only inside `run()`, on the subscriber's thread.
    private let url: RedisURL
    private let connectTimeout: TimeInterval
    private let healthCheckInterval: TimeInterval
    private let backoff: Backoff
    private let control: SubscriberControl
    private let onMessage: @Sendable (String, Data) -> Void
    private let onStatus: @Sendable (RedisSubscriber.Status) -> Void

    /// Why a session ended.
    private enum Exit: Error {
        case stopped
        case lost(RedisError)
    }

    /// What `poll` found.
    private struct Readiness {
        var readable = false
        var writable = false
        /// The wake pipe fired (and was drained): the channels may have changed.
        var woken = false
    }

    init(
        url: RedisURL, connectTimeout: TimeInterval, healthCheckInterval: TimeInterval, backoff: Backoff,
        control: SubscriberControl, onMessage: @escaping @Sendable (String, Data) -> Void,
        onStatus: @escaping @Sendable (RedisSubscriber.Status) -> Void
    ) {
        self.url = url
        self.connectTimeout = connectTimeout
        self.healthCheckInterval = healthCheckInterval
        self.backoff = backoff
        self.control = control
        self.onMessage = onMessage
        self.onStatus = onStatus
    }

    /// Runs sessions until stopped.
    func run() {
        var failures = 0
        var lossReported = false
        while !control.isStopping {
            do throws(Exit) {
                try session {
                    failures = 0
                    lossReported = false
                    onStatus(.connected)
                }
            } catch {
                guard case .lost(let reason) = error else { return }
                if !lossReported {
                    lossReported = true
                    onStatus(.lost(reason))
                }
                failures += 1
                let delay = backoff.delay(beforeRetry: failures, random: .random(in: 0...1))
                let deadline = ContinuousClock.now + Self.duration(delay)
                do {
                    while try wait(for: nil, events: 0, until: deadline) != nil {}
                } catch {
                    return
                }
            }
        }
    }

    /// One connection: connect, `AUTH`, subscribe, then read until it fails or the subscriber stops.
    /// - Parameter established: called once every channel wanted at the start is confirmed.
    /// - Throws: always: ``Exit/stopped`` or ``Exit/lost(_:)``.
    private func session(established: () -> Void) throws(Exit) {
        let context = try lost { () throws(RedisError) in try HiredisContext.startConnect(to: url) }
        let descriptor = context.descriptor
        let connectDeadline = ContinuousClock.now + Self.duration(connectTimeout)
        while true {
            guard let ready = try wait(for: descriptor, events: Int16(POLLOUT), until: connectDeadline) else {
                throw .lost(.timeout(endpoint: url.endpoint, operation: "connect", seconds: connectTimeout))
            }
            if ready.writable { break }
        }
        let code = context.socketError()
        guard code == 0 else { throw .lost(.cannotConnect(endpoint: url.endpoint, reason: Posix.message(code))) }
        if let password = url.password {
            let auth = [Data("AUTH".utf8)] + (url.user.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)]
            if case .error(let message) = try exchange(auth, on: context, until: connectDeadline) {
                throw .lost(.server(message: message))
            }
        }

        // Channels SUBSCRIBE was sent for and UNSUBSCRIBE was not: the ones whose messages are delivered.
        var subscribed: Set<String> = []
        var outputPending = false
        func sync() throws(Exit) {
            let wanted = control.channels
            let added = wanted.subtracting(subscribed).sorted()
            let removed = subscribed.subtracting(wanted).sorted()
            guard !added.isEmpty || !removed.isEmpty else { return }
            try lost { () throws(RedisError) in
                if !added.isEmpty { try context.append([Data("SUBSCRIBE".utf8)] + added.map { Data($0.utf8) }) }
                if !removed.isEmpty { try context.append([Data("UNSUBSCRIBE".utf8)] + removed.map { Data($0.utf8) }) }
                outputPending = try !context.flush()
            }
            subscribed = wanted
        }
        try sync()
        var awaiting = subscribed
        var isEstablished = awaiting.isEmpty
        if isEstablished { established() }

        // Silence for one interval sends a PING; silence for another ends the session.
        var lastHeard = ContinuousClock.now
        var pinged = false
        let interval = Self.duration(healthCheckInterval)
        while true {
            let events = Int16(POLLIN) | (outputPending ? Int16(POLLOUT) : 0)
            guard let ready = try wait(for: descriptor, events: events, until: lastHeard + interval * (pinged ? 2 : 1))
            else {
                if pinged {
                    throw .lost(.timeout(endpoint: url.endpoint, operation: "PING", seconds: healthCheckInterval))
                }
                pinged = true
                try lost { () throws(RedisError) in
                    try context.append([Data("PING".utf8)])
                    outputPending = try !context.flush()
                }
                continue
            }
            // Checked whatever else is ready: the pipe was drained, so this wake-up will not come again.
            if ready.woken { try sync() }
            if ready.writable {
                try lost { () throws(RedisError) in outputPending = try !context.flush() }
            }
            guard ready.readable else { continue }
            try lost { () throws(RedisError) in try context.readAvailable() }
            lastHeard = .now
            pinged = false
            while let reply = try lost({ () throws(RedisError) in try context.nextReply() }) {
                // A callback may have called stop(): nothing is delivered after that.
                if control.isStopping { throw .stopped }
                switch reply {
                case .array(let parts) where parts.count == 3 && parts[0].string == "message":
                    guard let channel = parts[1].string, subscribed.contains(channel) else { continue }
                    onMessage(channel, parts[2].data ?? Data())
                case .array(let parts) where parts.count == 3 && parts[0].string == "subscribe":
                    if let channel = parts[1].string { awaiting.remove(channel) }
                    if !isEstablished, awaiting.isEmpty {
                        isEstablished = true
                        established()
                    }
                case .error(let message):
                    throw .lost(.server(message: message))
                default:
                    // unsubscribe confirmations, PING's answers (`pong` array, or `PONG` outside
                    // subscribed mode): only proof of life.
                    continue
                }
            }
        }
    }

    /// Sends one command and waits for its reply, for `AUTH` before subscribing.
    private func exchange(
        _ arguments: [Data], on context: HiredisContext,
        until deadline: ContinuousClock.Instant
    ) throws(Exit) -> RedisReply {
        var pending = try lost { () throws(RedisError) in
            try context.append(arguments)
            return try !context.flush()
        }
        while true {
            if let reply = try lost({ () throws(RedisError) in try context.nextReply() }) { return reply }
            let events = Int16(POLLIN) | (pending ? Int16(POLLOUT) : 0)
            guard let ready = try wait(for: context.descriptor, events: events, until: deadline) else {
                throw .lost(.timeout(endpoint: url.endpoint, operation: "AUTH", seconds: connectTimeout))
            }
            try lost { () throws(RedisError) in
                if ready.writable { pending = try !context.flush() }
                if ready.readable { try context.readAvailable() }
            }
        }
    }

    /// Waits until `descriptor` is ready for `events`, the wake pipe is written, or `deadline` passes.
    /// - Returns: nil at the deadline.
    /// - Throws: ``Exit/stopped`` when the subscriber stops.
    private func wait(
        for descriptor: Int32?, events: Int16,
        until deadline: ContinuousClock.Instant
    ) throws(Exit) -> Readiness? {
        while true {
            if control.isStopping { throw .stopped }
            var watched = [pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            if let descriptor { watched.append(pollfd(fd: descriptor, events: events, revents: 0)) }
            let count = poll(&watched, nfds_t(watched.count), Posix.pollTimeout(until: deadline))
            if count < 0 {
                if errno == EINTR { continue }
                throw .lost(.system(reason: "poll: \(Posix.message(errno))"))
            }
            // poll rounds its timeout to milliseconds, so it can return a little early.
            if count == 0 { if ContinuousClock.now < deadline { continue } else { return nil } }
            var readiness = Readiness()
            if watched[0].revents != 0 {
                control.drain()
                if control.isStopping { throw .stopped }
                readiness.woken = true
            }
            if watched.count > 1 {
                let revents = watched[1].revents
                // An error or hang-up makes the next read or write fail and say why.
                let failed = revents & Int16(POLLERR | POLLHUP) != 0
                readiness.readable = revents & Int16(POLLIN) != 0 || (failed && events & Int16(POLLIN) != 0)
                readiness.writable = revents & Int16(POLLOUT) != 0 || (failed && events & Int16(POLLOUT) != 0)
            }
            return readiness
        }
    }

    /// Seconds as a `Duration`, between 1 ms and about 31 years (NaN counts as 1 ms).
    private static func duration(_ seconds: TimeInterval) -> Duration {
        let bounded = seconds.isNaN ? 0.001 : min(max(seconds, 0.001), 1e9)
        return .milliseconds(Int64((bounded * 1000).rounded(.up)))
    }

    /// Runs hiredis work, a failure of which ends the session.
    private func lost<T>(_ body: () throws(RedisError) -> T) throws(Exit) -> T {
        do {
            return try body()
        } catch {
            throw .lost(error)
        }
    }
}
