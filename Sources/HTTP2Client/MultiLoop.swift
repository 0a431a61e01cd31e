internal import CCurl
import Foundation
import RingerSync

/// The loop run by a client's dedicated thread: it owns the multi handle and every in-flight easy
/// handle, so libcurl is only ever driven from that one thread. Other threads reach it through
/// ``LoopMailbox`` alone.
///
/// On top of libcurl it keeps each request's deadline (also while libcurl holds the transfer waiting for a
/// connection or a free stream, where `CURLOPT_TIMEOUT_MS` does not count), resends requests whose
/// connection failed (``HTTP2Request/connectionRetries``), spaces reconnects to a failing host
/// (``ReconnectBackoff``) and closes connections that stay silent past a deadline (``ConnectionRegistry``).
final class MultiLoop {
    /// Upper bound on one `curl_multi_poll` wait in milliseconds. Wake-ups normally end the wait at once;
    /// this only bounds the delay should one be lost.
    static let pollIntervalMs: Int32 = 1000
    /// Most spare easy handles kept for reuse (``EasyHandlePool``): about the answers one loop turn reads.
    static let spareHandles = 256

    /// A request waiting to be (re)started.
    private struct Job {
        let pending: PendingResponse
        let attempt: Int
        /// Already counted in ``HTTP2Client/Statistics/reconnectsDelayed``.
        var wasHeld = false
    }

    private let mailbox: LoopMailbox
    private let configuration: HTTP2Client.Configuration
    private let statistics: LockedValue<HTTP2Client.Statistics>
    private let connections: ConnectionRegistry
    /// Each value holds the one +1 retain taken when its handle entered the multi handle;
    /// `detach` is the only place that gives it back. Keyed by the caller's PendingResponse.
    private var inFlight: [ObjectIdentifier: Unmanaged<Transfer>] = [:]
    /// Jobs held back by a reconnect backoff, oldest first.
    private var held: [Job] = []
    private var backoff: [String: ReconnectBackoff] = [:]
    /// No deadline of an in-flight or held request passes before this instant.
    private var nextExpiry: ContinuousClock.Instant?
    /// The `CURLMOPT_MAX_CONCURRENT_STREAMS` in force (see ``updateStreamCap(on:)``).
    private var streamCap: Int
    /// An easy handle that is never performed: adding and removing it makes libcurl look at its queue of
    /// transfers waiting for a connection (see ``updateStreamCap(on:)``). Freed in `deinit`.
    private let nudge: UnsafeMutableRawPointer?
    /// Easy handles of finished requests, reused by the next ones. Every `Transfer` holds it too, so it
    /// frees its spare handles only after the last transfer is gone.
    private let handles: EasyHandlePool

    init(mailbox: LoopMailbox, configuration: HTTP2Client.Configuration, statistics: LockedValue<HTTP2Client.Statistics>) {
        self.mailbox = mailbox
        self.configuration = configuration
        self.statistics = statistics
        connections = ConnectionRegistry(statistics: statistics)
        streamCap = configuration.maxConcurrentStreams
        nudge = curl_easy_init()
        handles = EasyHandlePool(capacity: min(configuration.maxConcurrentStreams, Self.spareHandles))
    }

    deinit {
        if let nudge { curl_easy_cleanup(nudge) }
    }

    /// Runs until shutdown, then fails what is left, frees the multi handle and signals exit.
    func run() {
        defer { mailbox.loopDidExit() }
        guard let multi = mailbox.multiHandle() else { return }
        while true {
            let batch = mailbox.takeBatch()
            if batch.isShuttingDown {
                failAll(multi, with: .shutDown)
                for pending in batch.submissions {
                    pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
                break
            }
            for pending in batch.submissions {
                schedule(Job(pending: pending, attempt: 1), on: multi)
            }
            for pending in batch.cancellations {
                cancel(pending, on: multi)
            }
            releaseHeld(on: multi)

            var running: Int32 = 0
            connections.setCorked(true)
            let performed = curl_multi_perform(multi, &running)
            connections.setCorked(false)
            if performed != CURLM_OK {
                failAll(multi, with: Curl.error(performed, function: "curl_multi_perform"))
            }
            completeFinished(on: multi)
            // An answer may have ended a backoff; what it held starts now, not after the next poll.
            releaseHeld(on: multi)
            expireOverdue(on: multi)
            updateStreamCap(on: multi)

            let polled = curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
            if polled != CURLM_OK {
                failAll(multi, with: Curl.error(polled, function: "curl_multi_poll"))
                Thread.sleep(forTimeInterval: 0.05)  // back off instead of spinning on a broken poll
            }
        }
        mailbox.retireMultiHandle()
        // Closes every connection through connectionClosedCallback, so `connections` must still be alive.
        withExtendedLifetime(connections) { _ = curl_multi_cleanup(multi) }
    }

    // MARK: Starting

    /// Starts a job now, or holds it while its host's reconnect backoff runs.
    private func schedule(_ job: Job, on multi: UnsafeMutableRawPointer) {
        let now = ContinuousClock.now
        guard now < job.pending.deadline else {
            timedOut(job.pending)
            return
        }
        let origin = job.pending.origin
        if !backoff.isEmpty, let state = backoff[origin], !state.mayStart(at: now) {
            var held = job
            if !held.wasHeld {
                held.wasHeld = true
                statistics.withLock { $0.reconnectsDelayed += 1 }
            }
            self.held.append(held)
            noteDeadline(job.pending.deadline)
            return
        }
        // Only a failing host has a backoff; a lookup that finds nothing costs no hashing of `origin`.
        let isProbe = !backoff.isEmpty && backoff[origin]?.started() == true
        start(job, isProbe: isProbe, on: multi)
    }

    /// Starts the held jobs whose host may be contacted again (one probe at a time while it is failing).
    private func releaseHeld(on multi: UnsafeMutableRawPointer) {
        guard !held.isEmpty else { return }
        let jobs = held
        held.removeAll()
        for job in jobs {
            schedule(job, on: multi)
        }
    }

    private func start(_ job: Job, isProbe: Bool, on multi: UnsafeMutableRawPointer) {
        let pending = job.pending
        // The task may have been cancelled before its request reached this thread.
        guard !pending.isCancelled else {
            pending.resolve(.failure(CancellationError()))
            return
        }
        let transfer: Transfer
        do {
            transfer = try Transfer.make(for: pending, attempt: job.attempt, configuration: configuration, pool: handles)
        } catch {
            if isProbe { backoff[pending.origin]?.probeEnded() }
            pending.resolve(.failure(error))
            return
        }
        transfer.isProbe = isProbe
        let retained = Unmanaged.passRetained(transfer)
        do {
            try transfer.attach(userData: retained.toOpaque(), connections: Unmanaged.passUnretained(connections).toOpaque())
            try Curl.check(curl_multi_add_handle(multi, transfer.easy), "curl_multi_add_handle")
        } catch {
            retained.release()
            if isProbe { backoff[pending.origin]?.probeEnded() }
            pending.resolve(.failure(error))
            return
        }
        transfer.startedAt = .now
        inFlight[ObjectIdentifier(pending)] = retained
        noteDeadline(pending.deadline)
    }

    // MARK: Finishing

    /// Takes a transfer out of the multi handle and gives back its retain.
    /// - Returns: The transfer, or nil if it is not in flight (already finished, or never started).
    private func detach(_ pending: PendingResponse, from multi: UnsafeMutableRawPointer) -> Transfer? {
        guard let retained = inFlight.removeValue(forKey: ObjectIdentifier(pending)) else { return nil }
        let transfer = retained.takeRetainedValue()
        // Removing an unfinished HTTP/2 transfer resets only its stream; the connection stays up.
        // It cannot fail for a handle this loop added; were it to, curl_easy_cleanup removes it again.
        _ = curl_multi_remove_handle(multi, transfer.easy)
        return transfer
    }

    private func cancel(_ pending: PendingResponse, on multi: UnsafeMutableRawPointer) {
        if let transfer = detach(pending, from: multi) {
            transfer.pending.resolve(.failure(CancellationError()))
        } else if let index = held.firstIndex(where: { $0.pending === pending }) {
            held.remove(at: index)
            pending.resolve(.failure(CancellationError()))
        }
    }

    private func completeFinished(on multi: UnsafeMutableRawPointer) {
        // Messages point into libcurl's memory, which removing a handle may free: copy them out first.
        var failures: [String: Set<Int>] = [:]
        var resends: [Job] = []
        var finished: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finished.append((easy, message.pointee.data.result))
        }
        for (easy, code) in finished {
            var userData: UnsafeMutableRawPointer?
            do {
                try Curl.check(CCurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &userData), "curl_easy_getinfo(PRIVATE)")
            } catch {
                continue  // cannot fail for a handle this loop configured
            }
            guard let userData else { continue }
            // Safe to dereference: only handles in the multi handle produce messages, and every one of
            // those is in `inFlight`, holding its retain, until `detach` removes it from the multi handle.
            let pending = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue().pending
            guard let transfer = detach(pending, from: multi) else { continue }
            finish(transfer, code: code, failures: &failures, resends: &resends)
        }
        // Failures first, so the resends already wait for the backoff they caused.
        let now = ContinuousClock.now
        for (origin, ports) in failures {
            for port in ports.sorted() {
                backoff[origin, default: ReconnectBackoff()]
                    .recordFailure(localPort: port, maximum: configuration.maxReconnectDelay, now: now)
            }
        }
        for job in resends {
            schedule(job, on: multi)
        }
    }

    /// Delivers a finished transfer's outcome, or queues its resend after a connection failure.
    /// - Parameters:
    ///   - failures: collects the local ports of failed connections per origin (0: never connected).
    ///   - resends: collects the jobs to start again.
    private func finish(_ transfer: Transfer, code: CURLcode, failures: inout [String: Set<Int>], resends: inout [Job]) {
        let pending = transfer.pending
        let port = transfer.localPort
        if transfer.isProbe {
            backoff[pending.origin]?.probeEnded()
        }
        let outcome = transfer.outcome(for: code)
        if case .success = outcome {
            connections.noteAnswer(localPort: port)
            if !backoff.isEmpty { backoff[pending.origin] = nil }
            pending.resolve(outcome)
            return
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            timedOut(pending, after: transfer, localPort: port)
            return
        }
        guard Curl.isConnectionFailure(code) else {
            pending.resolve(outcome)
            return
        }
        failures[pending.origin, default: []].insert(port)
        guard transfer.attempt <= pending.request.connectionRetries, ContinuousClock.now < pending.deadline,
              !pending.isCancelled else {
            pending.resolve(outcome)
            return
        }
        statistics.withLock { $0.requestsRetried += 1 }
        resends.append(Job(pending: pending, attempt: transfer.attempt + 1))
    }

    /// Fails every request whose deadline passed, in flight or held.
    private func expireOverdue(on multi: UnsafeMutableRawPointer) {
        let now = ContinuousClock.now
        guard let expiry = nextExpiry, expiry <= now else { return }
        nextExpiry = nil
        for retained in Array(inFlight.values) {
            let transfer = retained.takeUnretainedValue()
            guard transfer.pending.deadline <= now else {
                noteDeadline(transfer.pending.deadline)
                continue
            }
            let port = transfer.localPort
            if let detached = detach(transfer.pending, from: multi) {
                timedOut(detached.pending, after: detached, localPort: port)
            }
        }
        let jobs = held
        held.removeAll()
        for job in jobs {
            if job.pending.deadline <= now {
                timedOut(job.pending)
            } else {
                held.append(job)
                noteDeadline(job.pending.deadline)
            }
        }
    }

    /// Fails a request with ``HTTP2ClientError/timedOut``; closes its connection if that answered nothing
    /// since the request was sent (see ``HTTP2Client/Configuration/recyclesSilentConnections``).
    private func timedOut(_ pending: PendingResponse, after transfer: Transfer? = nil, localPort: Int = 0) {
        statistics.withLock { $0.requestsTimedOut += 1 }
        if let transfer, transfer.isProbe {
            // A probe that got nothing back counts as another failure of the host.
            backoff[pending.origin]?.probeEnded()
            backoff[pending.origin]?.recordFailure(localPort: localPort, maximum: configuration.maxReconnectDelay, now: .now)
        }
        if let transfer, configuration.recyclesSilentConnections, localPort != 0,
           connections.isSilent(localPort: localPort, since: transfer.startedAt) {
            connections.recycle(localPort: localPort)
        }
        pending.resolve(.failure(HTTP2ClientError.timedOut))
    }

    private func failAll(_ multi: UnsafeMutableRawPointer, with error: HTTP2ClientError) {
        for retained in Array(inFlight.values) {
            let pending = retained.takeUnretainedValue().pending
            detach(pending, from: multi)?.pending.resolve(.failure(error))
        }
        for job in held {
            job.pending.resolve(.failure(error))
        }
        held.removeAll()
    }

    /// Allows one stream per connection while a new connection has not answered yet, the configured cap
    /// otherwise. libcurl 7.88 assumes 100 streams on a new connection until the server's SETTINGS arrive, and
    /// attaches waiting transfers as soon as TLS agrees on h2, before reading those SETTINGS; against a server
    /// that allows fewer (APNs may start at 1) the extra streams are refused, and libcurl then closes the
    /// connection and reconnects for each refusal. A first answer means the SETTINGS were read (a server
    /// sends them first), and from then on libcurl follows the server's value.
    ///
    /// Raising the cap does not by itself wake the transfers libcurl parked for want of a stream: 7.88 moves
    /// one parked transfer on when a handle is removed (`process_pending_handles` in
    /// `curl_multi_remove_handle`), and each that then gets a connection moves the next. So a raise adds and
    /// removes ``nudge``, which starts that chain.
    private func updateStreamCap(on multi: UnsafeMutableRawPointer) {
        let cap = connections.isWarmingUp(at: .now) ? 1 : configuration.maxConcurrentStreams
        guard cap != streamCap else { return }
        // Cannot fail for a valid value on a live multi handle; if it did, the old cap stays, which is safe.
        guard CCurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, cap) == CURLM_OK else { return }
        let raised = cap > streamCap
        streamCap = cap
        if raised, let nudge, curl_multi_add_handle(multi, nudge) == CURLM_OK {
            _ = curl_multi_remove_handle(multi, nudge)
        }
    }

    // MARK: Timing

    private func noteDeadline(_ deadline: ContinuousClock.Instant) {
        if let current = nextExpiry, current <= deadline { return }
        nextExpiry = deadline
    }

    /// How long `curl_multi_poll` may wait: until the next deadline or backoff end, at most
    /// ``pollIntervalMs`` (libcurl shortens it further for its own timers).
    private func pollTimeout() -> Int32 {
        var wakeAt = nextExpiry
        let now = ContinuousClock.now
        for state in backoff.values where !held.isEmpty {
            // A wait that already ended needs no wake-up: the probe's answer (or deadline) wakes the loop.
            if let notBefore = state.notBefore, notBefore > now, wakeAt.map({ notBefore < $0 }) ?? true {
                wakeAt = notBefore
            }
        }
        guard let wakeAt else { return Self.pollIntervalMs }
        let left = now.duration(to: wakeAt)
        let milliseconds = Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15
        return Int32(max(0, min(milliseconds.rounded(.up), Double(Self.pollIntervalMs))))
    }
}
