import CUV

/// The libuv loop under one server's lws context, and the four handles the wrapper keeps on it: the
/// listener watch (the wrapper accepts, ``ConnectionAcceptor``), the keepalive tick (``KeepaliveWheel``),
/// the timer that resumes accepting after a pause, and the idle handle that spreads the shutdown's close
/// frames over loop turns (``GoingAwayPhase``). Service thread only.
///
/// Why libuv: lws' default loop is `poll(2)`, whose cost grows with every socket on every wake-up
/// (the kernel scans them all, lws walks all the returned slots); libuv waits in epoll, so idle sockets
/// cost nothing per wake-up. The loop is "foreign" to lws (`lws_context_creation_info.foreign_loops`):
/// lws then installs no SIGINT/SIGTERM handlers and graceful shutdown stays the application's.
final class ServiceLoop {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let listenWatch = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
    private let tickTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let resumeTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let everyTurn = UnsafeMutablePointer<uv_idle_t>.allocate(capacity: 1)
    private var isWatchingListener = false
    private var acceptingStopped = false
    private var isRunningEveryTurn = false
    private var handlesStarted = false
    private var handlesClosed = false

    /// Initialises the loop.
    /// - Returns: nil when `uv_loop_init` fails.
    init?() {
        loop = .allocate(capacity: 1)
        guard uv_loop_init(loop) == 0 else {
            loop.deallocate()
            listenWatch.deallocate()
            tickTimer.deallocate()
            resumeTimer.deallocate()
            everyTurn.deallocate()
            return nil
        }
    }

    /// The loop's monotonic clock in milliseconds (libuv's cached time).
    var milliseconds: Int {
        Int(uv_now(loop))
    }

    /// The loop's monotonic clock in whole seconds (libuv's cached millisecond time).
    var second: Int {
        Int(uv_now(loop) / 1000)
    }

    /// Keepalive ticks per second: the wheel's unit. Ten, so that the PINGs falling due in one second go out
    /// in ten small bursts rather than one (19,212 sockets at 20 s: about 95 a tick instead of 950), and a
    /// call placed meanwhile waits behind fewer of them.
    static let ticksPerSecond = 10

    /// The loop's monotonic clock in keepalive ticks (tenths of a second).
    var tick: Int {
        Int(uv_now(loop) / UInt64(1000 / Self.ticksPerSecond))
    }

    /// Starts the wrapper's handles: the listener watch on `listenDescriptor` and the keepalive tick (``ticksPerSecond``),
    /// whose events go to `owner` (``ServerEngine/listenerIsReadable()``, ``ServerEngine/tick()``,
    /// ``ServerEngine/resumeAccepting()``). `owner` must outlive the loop.
    func start(listenDescriptor: Int32, owner: ServerEngine) {
        let context = Unmanaged.passUnretained(owner).toOpaque()
        handlesStarted = true
        uv_poll_init_socket(loop, listenWatch, listenDescriptor)
        listenWatch.pointee.data = context
        uv_timer_init(loop, tickTimer)
        tickTimer.pointee.data = context
        uv_timer_init(loop, resumeTimer)
        resumeTimer.pointee.data = context
        uv_idle_init(loop, everyTurn)
        everyTurn.pointee.data = context
        watchListener(true)
        let interval = UInt64(1000 / Self.ticksPerSecond)
        uv_timer_start(tickTimer, { timer in ServiceLoop.owner(of: timer?.pointee.data)?.tick() }, interval, interval)
    }

    /// Starts or stops waiting for connections (never again after ``stopAccepting()``).
    func watchListener(_ watch: Bool) {
        guard watch != isWatchingListener, handlesStarted, !handlesClosed, !(watch && acceptingStopped) else { return }
        isWatchingListener = watch
        if watch {
            uv_poll_start(listenWatch, Int32(UV_READABLE.rawValue)) { handle, _, _ in
                ServiceLoop.owner(of: handle?.pointee.data)?.listenerIsReadable()
            }
        } else {
            uv_poll_stop(listenWatch)
        }
    }

    /// Stops accepting for `milliseconds`, then calls the owner's `resumeAccepting()`.
    func pauseAccepting(milliseconds: UInt64) {
        watchListener(false)
        uv_timer_start(
            resumeTimer, { timer in ServiceLoop.owner(of: timer?.pointee.data)?.resumeAccepting() },
            milliseconds, 0)
    }

    /// Stops waiting for connections for good, a pause in progress included (shutdown), and lets go of the
    /// listener: its descriptor may be closed once this returns (libuv forgets it in `uv_close`).
    func stopAccepting() {
        guard handlesStarted, !handlesClosed, !acceptingStopped else { return }
        watchListener(false)
        acceptingStopped = true
        uv_timer_stop(resumeTimer)
        Self.close(UnsafeMutableRawPointer(listenWatch))
    }

    /// Calls the owner's ``ServerEngine/continueGoingAway()`` once per loop turn, just before the loop polls
    /// (without blocking while this runs), until ``stopEveryTurn()``: work split into batches then
    /// alternates with the sockets' I/O. (A zero-delay timer would not: libuv 1.44 runs a timer re-armed from
    /// its own callback again in the same turn.)
    func runEveryTurn() {
        guard !isRunningEveryTurn, handlesStarted, !handlesClosed else { return }
        isRunningEveryTurn = true
        uv_idle_start(everyTurn) { idle in ServiceLoop.owner(of: idle?.pointee.data)?.continueGoingAway() }
    }

    /// Stops the calls of ``runEveryTurn()``.
    func stopEveryTurn() {
        guard isRunningEveryTurn, !handlesClosed else { return }
        isRunningEveryTurn = false
        uv_idle_stop(everyTurn)
    }

    /// Runs until ``stop()`` (called from a callback on this thread).
    func run() {
        uv_run(loop, UV_RUN_DEFAULT)
    }

    /// Makes ``run()`` return after the current callback.
    func stop() {
        uv_stop(loop)
    }

    /// Closes the wrapper's handles (the listener descriptor itself belongs to the acceptor).
    func closeHandles() {
        guard handlesStarted, !handlesClosed else { return }
        handlesClosed = true
        uv_timer_stop(tickTimer)
        uv_timer_stop(resumeTimer)
        uv_idle_stop(everyTurn)
        var handles = [
            UnsafeMutableRawPointer(tickTimer), UnsafeMutableRawPointer(resumeTimer),
            UnsafeMutableRawPointer(everyTurn),
        ]
        if !acceptingStopped {
            uv_poll_stop(listenWatch)
            handles.append(UnsafeMutableRawPointer(listenWatch))
        }
        handles.forEach(Self.close)
    }

    private static func close(_ handle: UnsafeMutableRawPointer) {
        handle.assumingMemoryBound(to: uv_handle_t.self).pointee.data = nil
        uv_close(handle.assumingMemoryBound(to: uv_handle_t.self), nil)
    }

    /// Runs the loop without blocking until no handle is left closing, at most `turns` times: lws
    /// closes its socket and timer handles asynchronously while its context is destroyed.
    func settle(turns: Int = 1000) {
        for _ in 0..<turns where uv_run(loop, UV_RUN_NOWAIT) != 0 {}
    }

    /// Closes the loop and frees its memory; every handle must be closed by now.
    func close() {
        closeHandles()
        settle()
        if uv_loop_close(loop) != 0 {
            // A handle is still open (lws left one): leak the loop rather than free memory libuv still uses.
            return
        }
        loop.deallocate()
        listenWatch.deallocate()
        tickTimer.deallocate()
        resumeTimer.deallocate()
        everyTurn.deallocate()
    }

    private static func owner(of data: UnsafeMutableRawPointer?) -> ServerEngine? {
        guard let data else { return nil }
        return Unmanaged<ServerEngine>.fromOpaque(data).takeUnretainedValue()
    }
}
