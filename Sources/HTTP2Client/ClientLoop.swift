import Foundation
import RingerSupport
import SocketSupport

#if canImport(Glibc)
import Glibc
#endif

/// The loop run by a client's dedicated thread: it owns every connection and in-flight stream, so nghttp2 and
/// OpenSSL are only ever driven from that one thread (checked at run time). Other threads reach it through
/// ``LoopMailbox`` alone.
///
/// Per origin it keeps a queue of requests waiting for a stream, opens connections (at most
/// ``HTTP2Client/Configuration/maxConnectionsPerHost``, one being set up at a time, spaced by
/// ``ReconnectBackoff`` while they fail), and starts requests on the connection with the most free streams.
/// On top of nghttp2 it enforces each request's deadline (also while it waits for a connection or a stream),
/// resends refused streams and, within ``HTTP2Request/connectionRetries``, requests whose connection failed,
/// keeps idle connections alive with PING, and closes connections that are silent, idle too long, or drained
/// after GOAWAY. The requests in flight are the connections' own stream tables; each connection's next due
/// timer (``ClientConnection/nextTimer(keepAlive:idleLimit:)``) both bounds the `poll` wait and says what
/// housekeeping does when it is due.
final class ClientLoop {
    /// Upper bound on one `poll` wait in milliseconds; timers normally end it sooner.
    static let pollIntervalMs: Int32 = 1000

    private let mailbox: LoopMailbox
    private let configuration: HTTP2Client.Configuration
    private let statistics: LockedValue<HTTP2Client.Statistics>
    private let tls: ClientTLSContext?
    private var connections: [String: [ClientConnection]] = [:]
    private var queues: [String: [Job]] = [:]
    private var backoff: [String: ReconnectBackoff] = [:]
    private let keepAlive: Duration?
    private let idleLimit: Duration
    /// The loop's thread: the one that made the loop, which then runs it.
    private let loop = LoopThread()
    /// No deadline of an in-flight or queued request passes before this instant.
    private var nextExpiry: ContinuousClock.Instant?

    init(
        mailbox: LoopMailbox, configuration: HTTP2Client.Configuration, tls: ClientTLSContext?,
        statistics: LockedValue<HTTP2Client.Statistics>
    ) {
        self.mailbox = mailbox
        self.configuration = configuration
        self.tls = tls
        self.statistics = statistics
        keepAlive = configuration.keepAliveInterval.map { Duration.seconds($0) }
        idleLimit = .seconds(configuration.connectionIdleLifetime)
    }

    /// Runs until shutdown, then fails what is left, closes every connection and signals exit.
    func run() {
        loop.check("ClientLoop")
        defer { mailbox.loopDidExit() }
        Posix.blockBrokenPipeSignal()
        var woke = false
        while true {
            let batch = mailbox.takeBatch(drainingWakePipe: woke)
            if batch.isShuttingDown {
                shutDown(also: batch.submissions)
                break
            }
            for pending in batch.submissions {
                enqueue(Job(pending: pending), atFront: false)
            }
            for pending in batch.cancellations {
                cancel(pending)
            }
            let now = ContinuousClock.now
            // Before any answer is handed back: a caller that sends again as soon as it has its answer
            // must find the SETTINGS that came with that answer (the pool reads this to pick a connection).
            mailbox.publish(streamCapacity: streamCapacity())
            collectEnds()
            housekeeping(at: now)
            collectEnds()
            for origin in Array(queues.keys) {
                dispatch(origin, at: now)
            }
            mailbox.publish(streamCapacity: streamCapacity())
            var descriptors = [pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            var polled: [ClientConnection] = []
            var endsWaiting = false
            for list in connections.values {
                for connection in list {
                    connection.flush()
                    endsWaiting = endsWaiting || !connection.finished.isEmpty
                    let events = connection.pollEvents
                    guard events != 0 else { continue }
                    descriptors.append(pollfd(fd: connection.descriptor, events: events, revents: 0))
                    polled.append(connection)
                }
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), endsWaiting ? 0 : pollTimeout(at: .now))
            woke = false
            guard ready > 0 else { continue }
            woke = descriptors[0].revents != 0
            for (index, connection) in polled.enumerated() where descriptors[index + 1].revents != 0 {
                connection.handle(events: descriptors[index + 1].revents)
            }
        }
        mailbox.retire()
    }

    /// What ``LoopMailbox/streamCapacity`` reports: for each origin, the stream limits of its usable
    /// connections added up; with none, 0 while reconnects back off (the host failed since its last answer)
    /// and 1 otherwise (a connection would be opened, and its limit is not known before its SETTINGS).
    private func streamCapacity() -> Int {
        guard !connections.isEmpty || !backoff.isEmpty else { return 1 }
        var total = 0
        for (origin, list) in connections {
            let limits = list.reduce(0) { $0 + $1.streamLimit(configuration.maxConcurrentStreams) }
            total += limits > 0 ? limits : (backoff[origin] == nil ? 1 : 0)
        }
        return total
    }

    // MARK: Starting

    private func enqueue(_ job: Job, atFront: Bool) {
        let origin = job.pending.target.origin
        if atFront {
            queues[origin, default: []].insert(job, at: 0)
        } else {
            queues[origin, default: []].append(job)
        }
        noteDeadline(job.pending.deadline)
    }

    /// Starts what waits for `origin` on connections with free streams, opening one when none has room.
    private func dispatch(_ origin: String, at now: ContinuousClock.Instant) {
        guard var queue = queues[origin], !queue.isEmpty else { return }
        var list = connections[origin] ?? []
        var started = 0
        defer {
            queue.removeFirst(started)
            queues[origin] = queue.isEmpty ? nil : queue
        }
        while started < queue.count {
            let job = queue[started]
            guard !job.pending.isCancelled else {
                job.pending.resolve(.failure(CancellationError()))
                started += 1
                continue
            }
            var best: ClientConnection?
            var bestFree = 0
            for connection in list {
                let free = connection.freeStreams(limit: configuration.maxConcurrentStreams)
                if free > bestFree {
                    best = connection
                    bestFree = free
                }
            }
            if let best {
                if best.start(job, userAgent: configuration.userAgent) != nil {
                    started += 1
                }
                continue  // a refused start marked that connection full; look again
            }
            guard !list.contains(where: \.isWarmingUp) else { return }
            let usable = list.filter { $0.phase != .closed && !$0.goAwayReceived }.count
            guard configuration.maxConnectionsPerHost == 0 || usable < configuration.maxConnectionsPerHost else {
                return
            }
            guard backoff[origin]?.mayConnect(at: now) ?? true else {
                noteHeld(&queue, from: started)
                return
            }
            do {
                let connection = try ClientConnection(
                    target: job.pending.target, tls: tls, configuration: configuration)
                statistics.withLock { $0.connectionsOpened += 1 }
                list.append(connection)
                connections[origin] = list
            } catch {
                // The name does not resolve or no socket can be made: what waits cannot be sent now.
                backoff[origin, default: ReconnectBackoff()].recordFailure(
                    error, maximum: configuration.maxReconnectDelay, now: now)
                for waiting in queue[started...] {
                    waiting.pending.resolve(.failure(error))
                }
                started = queue.count
                return
            }
        }
    }

    /// Counts the requests a reconnect backoff holds back, once each.
    private func noteHeld(_ queue: inout [Job], from start: Int) {
        var newlyHeld = 0
        for index in start..<queue.count where !queue[index].wasHeld {
            queue[index].wasHeld = true
            newlyHeld += 1
        }
        if newlyHeld > 0 { statistics.withLock { $0.reconnectsDelayed += newlyHeld } }
    }

    // MARK: Finishing

    /// Delivers what ended on every connection and drops closed connections, noting failures for the backoff.
    private func collectEnds() {
        for (origin, list) in connections {
            var kept: [ClientConnection] = []
            for connection in list {
                let ends = connection.finished
                connection.finished.removeAll()
                for (stream, end) in ends {
                    finish(stream, end, origin: origin)
                }
                if connection.phase == .closed {
                    // A connection that ended without ever answering failed, even when the client closed it
                    // (drained after an immediate GOAWAY, silent): reconnecting to such a host must back off.
                    if !connection.closedByClient || connection.lastAnswerAt == nil {
                        backoff[origin, default: ReconnectBackoff()]
                            .recordFailure(connection.failure, maximum: configuration.maxReconnectDelay, now: .now)
                    }
                    if !connection.carriedStreams, let failure = connection.failure {
                        // It failed while being set up (refused, TLS, no h2): what waited for it failed too.
                        failQueued(origin, with: failure)
                    }
                } else {
                    kept.append(connection)
                }
            }
            connections[origin] = kept.isEmpty ? nil : kept
        }
    }

    private func finish(_ stream: ClientStream, _ end: StreamEnd, origin: String) {
        let pending = stream.pending
        var job = stream.job
        if stream.headersSent { job.wasSent = true }
        if case .response(let response) = end {
            backoff[origin] = nil
            pending.resolve(.success(response))
            return
        }
        guard !pending.isCancelled else {
            pending.resolve(.failure(CancellationError()))
            return
        }
        switch end {
        case .response:
            return
        case .refused:
            guard ContinuousClock.now < pending.deadline else {
                statistics.withLock { $0.requestsTimedOut += 1 }
                pending.resolve(.failure(HTTP2ClientError.timedOut))
                return
            }
            guard job.refusals < Job.maxRefusals else {
                pending.resolve(
                    .failure(
                        HTTP2ClientError.transport(
                            function: "RST_STREAM", code: Int(HTTP2ErrorCode.refusedStream),
                            message:
                                "the server refused the stream \(job.refusals + 1) times (REFUSED_STREAM or GOAWAY)")))
                return
            }
            job.refusals += 1
            if stream.headersSent { job.attempt += 1 }
            statistics.withLock { $0.streamsRefused += 1 }
            enqueue(job, atFront: true)
        case .failed(let error, let connectionFailure):
            guard connectionFailure, chargeConnectionFailure(&job) else {
                pending.resolve(.failure(error))
                return
            }
            enqueue(job, atFront: true)
        }
    }

    /// Charges `job` with one failed connection: true, with the resend counted, when its
    /// ``HTTP2Request/connectionRetries`` and deadline allow another attempt.
    private func chargeConnectionFailure(_ job: inout Job) -> Bool {
        guard job.connectionRetries < job.pending.request.connectionRetries, ContinuousClock.now < job.pending.deadline
        else { return false }
        job.connectionRetries += 1
        job.attempt += 1
        statistics.withLock { $0.requestsRetried += 1 }
        return true
    }

    /// Charges every request waiting for `origin` with a failed connection attempt: each is kept for another
    /// attempt within its ``HTTP2Request/connectionRetries``, the others fail with `error`.
    private func failQueued(_ origin: String, with error: HTTP2ClientError) {
        guard let queue = queues[origin] else { return }
        var kept: [Job] = []
        for var job in queue {
            if !job.pending.isCancelled, chargeConnectionFailure(&job) {
                kept.append(job)
            } else {
                job.pending.resolve(.failure(error))
            }
        }
        queues[origin] = kept.isEmpty ? nil : kept
    }

    private func cancel(_ pending: PendingResponse) {
        let origin = pending.target.origin
        for connection in connections[origin] ?? [] {
            guard let streamID = connection.streamID(of: pending) else { continue }
            connection.abandon(streamID: streamID)
            pending.resolve(.failure(CancellationError()))
            return
        }
        if let index = queues[origin]?.firstIndex(where: { $0.pending === pending }) {
            queues[origin]?.remove(at: index)
            pending.resolve(.failure(CancellationError()))
        }
    }

    private func shutDown(also submissions: [PendingResponse]) {
        for pending in submissions {
            pending.resolve(.failure(HTTP2ClientError.shutDown))
        }
        for list in connections.values {
            for connection in list {
                for streamID in Array(connection.streams.keys) {
                    connection.abandon(streamID: streamID)?.pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
                connection.close(reason: "client shut down")
                // Streams that ended since the loop last collected are still the callers' to answer.
                for (stream, _) in connection.finished {
                    stream.pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
                connection.finished.removeAll()
            }
        }
        for job in queues.values.joined() {
            job.pending.resolve(.failure(HTTP2ClientError.shutDown))
        }
        queues.removeAll()
        connections.removeAll()
    }

    // MARK: Timers

    /// Deadlines, then each connection's due timer: failing set-ups that hang, closing drained and idle
    /// connections, keep-alive PINGs and closing connections whose PING goes unanswered.
    private func housekeeping(at now: ContinuousClock.Instant) {
        if let expiry = nextExpiry, expiry <= now {
            expireOverdue(at: now)
        }
        for list in connections.values {
            for connection in list {
                guard let (due, timer) = connection.nextTimer(keepAlive: keepAlive, idleLimit: idleLimit), due <= now
                else { continue }
                act(on: timer, of: connection)
            }
        }
    }

    /// Carries out a connection's due timer. Each action moves the timer on (the connection closes, or its
    /// PING state changes), so the same timer is not due again at once.
    private func act(on timer: ClientConnection.Timer, of connection: ClientConnection) {
        switch timer {
        case .setUpLimit:
            connection.failSetUp()
        case .drained:
            connection.close(reason: "the server sent GOAWAY")
        case .idleLimit:
            connection.close(reason: "idle for \(Int(configuration.connectionIdleLifetime)) s")
        case .keepAlivePing:
            if connection.ping() {
                statistics.withLock { $0.pingsSent += 1 }
            } else {
                // nghttp2 would not queue it (out of memory): a connection that cannot be kept warm is recycled
                // rather than left with a timer that stays due.
                connection.fail(
                    .transport(function: "nghttp2_submit_ping", code: 0, message: "cannot queue a keep-alive PING"))
            }
        case .pingAnswer:
            guard let sentAt = connection.pingSentAt, connection.lastReadAt < sentAt else {
                // No ACK, but the server spoke since: it is alive. Forget this PING and send another after the
                // next silence.
                connection.forgetPing()
                return
            }
            // A connection whose PING goes unanswered is presumed dead (a half-open TCP connection).
            statistics.withLock { $0.connectionsRecycled += 1 }
            connection.fail(
                .transport(
                    function: "PING", code: 0, message: "no answer to a keep-alive PING; connection presumed dead"))
        }
    }

    /// How long a keep-alive PING may go unanswered: the interval, at most 10 s.
    static func pingTimeout(_ interval: Duration) -> Duration {
        min(interval, .seconds(10))
    }

    /// Fails every request whose deadline passed, in flight or queued.
    private func expireOverdue(at now: ContinuousClock.Instant) {
        nextExpiry = nil
        // Closed only after every overdue request is resolved: closing first would fail the others on that
        // connection as a lost connection rather than as timed out.
        var silent: [ClientConnection] = []
        for connection in connections.values.joined() {
            for (streamID, stream) in connection.streams {
                guard stream.pending.deadline <= now else {
                    noteDeadline(stream.pending.deadline)
                    continue
                }
                connection.abandon(streamID: streamID)
                statistics.withLock { $0.requestsTimedOut += 1 }
                if configuration.recyclesSilentConnections, connection.phase == .open,
                    connection.lastAnswerAt.map { $0 < stream.startedAt } ?? true,
                    !silent.contains(where: { $0 === connection })
                {
                    // Nothing answered here since this request went out: presume the connection dead.
                    silent.append(connection)
                }
                stream.pending.resolve(.failure(HTTP2ClientError.timedOut))
            }
        }
        for connection in silent {
            statistics.withLock { $0.connectionsRecycled += 1 }
            connection.close(reason: "no answer on this connection before a request's deadline")
        }
        for (origin, queue) in queues {
            var kept: [Job] = []
            for job in queue {
                if job.pending.deadline <= now {
                    statistics.withLock { $0.requestsTimedOut += 1 }
                    job.pending.resolve(.failure(Self.expiredUnsent(job, lastFailure: backoff[origin]?.lastFailure)))
                } else {
                    kept.append(job)
                    noteDeadline(job.pending.deadline)
                }
            }
            queues[origin] = kept.isEmpty ? nil : kept
        }
    }

    /// The error of a request whose deadline passed while it waited for a connection or a stream: a timeout
    /// if it may have reached the server before, else, when connections to its host keep failing, that
    /// failure, since it was certainly not delivered and the cause is more use to an operator than "timed out".
    static func expiredUnsent(_ job: Job, lastFailure: HTTP2ClientError?) -> HTTP2ClientError {
        guard !job.wasSent, let lastFailure, let function = lastFailure.transportFunction else { return .timedOut }
        return .transport(
            function: function, code: lastFailure.transportCode ?? 0,
            message: "not sent before the deadline: no working connection to \(job.pending.target.authority); "
                + "last failure: \(lastFailure.transportMessage ?? "")")
    }

    private func noteDeadline(_ deadline: ContinuousClock.Instant) {
        if let current = nextExpiry, current <= deadline { return }
        nextExpiry = deadline
    }

    /// How long `poll` may wait: until the next deadline, backoff end or connection timer, at most
    /// ``pollIntervalMs``.
    private func pollTimeout(at now: ContinuousClock.Instant) -> Int32 {
        var wakeAt = nextExpiry
        func consider(_ instant: ContinuousClock.Instant) {
            if wakeAt.map({ instant < $0 }) ?? true { wakeAt = instant }
        }
        for origin in queues.keys {
            if let notBefore = backoff[origin]?.notBefore, notBefore > now { consider(notBefore) }
        }
        for connection in connections.values.joined() {
            if let (due, _) = connection.nextTimer(keepAlive: keepAlive, idleLimit: idleLimit) { consider(due) }
        }
        guard let wakeAt else { return Self.pollIntervalMs }
        return min(Posix.pollTimeout(until: wakeAt), Self.pollIntervalMs)
    }
}
