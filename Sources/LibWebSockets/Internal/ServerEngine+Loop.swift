import CLWS
import CUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The service loop: libuv under lws, the wrapper's accept, keepalive tick and heap trimming.
extension ServerEngine {
    /// WebSockets that must have closed before the heap is trimmed, and the fewest seconds between two trims:
    /// `malloc_trim` walks the heap, so it runs after a wave of closes, not after each one.
    static let trimAfterClosedSockets = 64
    static let trimIntervalSeconds = 2
    /// How long accepting pauses when descriptors are exhausted and no reserve is left, in milliseconds.
    static let acceptPauseMilliseconds: UInt64 = 100

    /// Runs the loop on the calling (service) thread until asked to stop, then closes every connection
    /// and destroys the context on this same thread, as lws requires.
    func runServiceLoop(
        context: OpaquePointer, loop: ServiceLoop, acceptor: ConnectionAcceptor, eventPipe: EventPipeReclaim?
    ) {
        bound.claimForCurrentThread()
        let table = self.table
        table.eventPipeReclaim = eventPipe
        table.loop = loop
        table.acceptor = acceptor
        table.vhost = lws_get_vhost_by_name(context, "default")
        if let ping = configuration.webSocketPingSeconds {
            table.keepalive = KeepaliveWheel(pingAfter: ping * ServiceLoop.ticksPerSecond, now: loop.tick)
        }
        table.deadlines = DeadlineWheel(
            horizon: configuration.requestDeadlineSeconds * ServiceLoop.ticksPerSecond,
            now: loop.tick)
        table.lastTrim = loop.second
        table.lastSecond = loop.second
        loop.start(listenDescriptor: acceptor.listenDescriptor, owner: self)
        if !mailbox.isStopRequested { loop.run() }
        // Whatever the phase left open now closes without its frame (the bound passed, or a stop without grace).
        table.goingAway = nil
        loop.closeHandles()
        acceptor.shutdown()
        // A task's job left in the mailbox still has to run, or its task would never finish.
        for case .run(let job) in mailbox.close() { ServiceExecutor.runElsewhere(job) }
        // With a foreign loop lws closes its handles asynchronously: the first destroy starts closing every
        // connection (delegates hear webSocketDidClose), the loop turns finish it, the second destroy frees.
        // Meanwhile lws closes its event pipe twice, so its number is held until then (EventPipeReclaim).
        table.eventPipeReclaim?.destroyWillBegin()
        lws_context_destroy(context)
        table.eventPipeReclaim?.reclaim()
        loop.settle()
        lws_context_destroy(context)
        loop.close()
        table.eventPipeReclaim?.release()
        table.eventPipeReclaim = nil
        table.sessions.removeAll()
        table.loop = nil
        table.acceptor = nil
        table.vhost = nil
        table.deadlines = nil
    }

    /// The listener is readable: accept what waits and hand it to lws.
    func listenerIsReadable() {
        let table = self.table
        guard let loop = table.loop, let acceptor = table.acceptor, let vhost = table.vhost else { return }
        var adopted = false
        let outcome = acceptor.acceptPending(
            at: loop.milliseconds,
            adopt: { descriptor in
                // On failure lws has closed the descriptor itself ("Either returns new wsi bound to accept_fd, or closes
                // accept_fd and returns NULL", lws-adopt.h): closing it again could close another thread's new one.
                guard let wsi = lws_adopt_socket_vhost(vhost, descriptor) else { return nil }
                adopted = true
                return wsi
            },
            shed: { wsi in
                // Asynchronously: a synchronous close would run lws' callbacks (and this acceptor's) from inside this loop.
                lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            })
        // The adopted sockets' handshake timeouts must be armed in lws' timer (see ServiceMailbox.wake).
        if adopted { mailbox.wake() }
        if outcome == .pause { loop.pauseAccepting(milliseconds: Self.acceptPauseMilliseconds) }
    }

    /// Tells the connection budget where `wsi`'s connection now stands (``ConnectionBudget``).
    func budget(_ wsi: OpaquePointer, _ standing: ConnectionBudget.Standing) {
        guard let loop = table.loop, let network = lws_get_network_wsi(wsi) else { return }
        // An HTTP/2 connection multiplexes requests: it is never shed.
        table.acceptor?.connection(network, is: network != wsi ? .longLived : standing, at: loop.milliseconds)
    }

    /// The accept pause is over.
    func resumeAccepting() {
        table.loop?.watchListener(true)
    }

    /// Every keepalive tick (``ServiceLoop/ticksPerSecond``): PINGs and hang-ups that fell due; once a second,
    /// a wake-up of lws and a heap trim after a wave of closes.
    func tick() {
        let table = self.table
        guard let loop = table.loop else { return }
        endGoingAwayIfOver()
        for id in table.deadlines?.advance(to: loop.tick) ?? [] {
            requestDeadlinePassed(id)
        }
        for decision in table.keepalive?.advance(to: loop.tick) ?? [] {
            switch decision {
            case .ping(let id):
                guard let session = table.sessions[id] else { continue }
                session.pingDue = true
                lws_callback_on_writable(session.wsi)
            case .hangUp(let id):
                // Nothing (data or PONG) for twice the PING interval: the peer is gone (RFC 6455 §5.5.2).
                guard let session = table.sessions[id] else { continue }
                lws_set_timeout(session.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            }
        }
        let second = loop.second
        guard second != table.lastSecond else { return }
        table.lastSecond = second
        // One lws event per second: lws re-arms its timer only after an event of its own (the hang-ups above are
        // lws timeouts), and its libuv idle handler serves buffered input (a pipelined request) once per event
        // and then stops; this bounds either wait to a second. One pipe write a second, whatever the sockets.
        mailbox.wake()
        // A wave of closes is trimmed after it and once more an interval later: memory that owners free after
        // webSocketDidClose (tasks on other threads dropping subscribers) is then returned too.
        let wave = table.closedSinceTrim >= Self.trimAfterClosedSockets
        if wave || table.trimFollowUpDue, second - table.lastTrim >= Self.trimIntervalSeconds {
            table.trimFollowUpDue = wave
            table.closedSinceTrim = 0
            table.lastTrim = second
            _ = CUV_malloc_trim()
        }
    }

    /// The current keepalive tick (the wheel's unit, tenths of a second).
    var loopTick: Int {
        table.loop?.tick ?? 0
    }
}
