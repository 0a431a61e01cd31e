import RingerSupport
import SocketSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP (layer 4) load balancer on 127.0.0.1 in front of several `ringer serve` nodes, so a simulated phone
/// keeps one server URL while nodes are killed, as a real app does behind an operator's load balancer
/// (HAProxy `mode tcp`, `balance source`, health checks). Bytes are copied as they are; nothing is parsed.
///
/// Each ``front(preferring:)`` port stands for one "source": its connections stick to one node while that
/// node is up. Threads: one accept thread per front port, one relay thread per relayed connection; every
/// thread holds the balancer, so it lives until ``shutdown()``, which joins them all.
///
/// Thread-safety: every method may be called from any thread.
public final class LoopbackBalancer: Sendable {
    /// Why ``front(preferring:)`` did not open a port, besides a ``PosixError``.
    public enum UsageError: Error, Equatable, CustomStringConvertible {
        /// `preferred` is not a node index (`0..<nodes`).
        case noSuchNode(Int, nodes: Int)
        /// ``LoopbackBalancer/shutdown()`` was called.
        case shutDown

        /// One line for a test failure or a log.
        public var description: String {
            switch self {
            case .noSuchNode(let node, let nodes): "no node \(node): the balancer has \(nodes) (0..<\(nodes))"
            case .shutDown: "the balancer is shut down"
            }
        }
    }

    /// Seconds a connection may stay half-closed (one side sent its FIN, the other has not) before the balancer
    /// closes it, as HAProxy's `timeout client-fin` / `timeout server-fin` do: a peer that never closes does not
    /// hold a relay thread for good.
    public static let halfClosedLinger: Double = 2

    /// The nodes' ports on 127.0.0.1, index = node number.
    private let backends: [Int]
    private let state: LockedValue<BalancerState>
    /// Held for the whole of ``shutdown()`` so a second, concurrent call waits for the first to finish.
    private let shutdownDone = LockedValue(false)

    /// Creates a balancer with no front port yet.
    /// - Parameter backends: the nodes' TCP ports on 127.0.0.1, index = node number. Nodes start up.
    public init(backends: [Int]) {
        self.backends = backends
        state = LockedValue(BalancerState(down: Array(repeating: false, count: backends.count)))
    }

    /// Opens a new front port on 127.0.0.1 (kernel-chosen, port 0). Each connection accepted there goes to
    /// backend `preferred` or, when that node is marked down or refuses the connection (or does not answer
    /// within 1 second), to the next node in order (preferred+1, +2 … wrapping). When no node takes it the
    /// client connection is closed.
    /// - Parameter preferred: the node index (`0..<backends.count`) this port's connections stick to.
    /// - Returns: the front port.
    /// - Throws: a ``PosixError`` when the socket cannot be created or bound, or the accept thread cannot
    ///   start; ``UsageError`` for a `preferred` that is no node or after ``shutdown()``.
    public func front(preferring preferred: Int) throws -> Int {
        guard backends.indices.contains(preferred) else {
            throw UsageError.noSuchNode(preferred, nodes: backends.count)
        }
        let (listener, port) = try listenOnLoopback()
        try state.withLock { state in
            guard !state.stopping else {
                Posix.closeDescriptor(listener)
                throw UsageError.shutDown
            }
            // Started under the lock so shutdown() finds the thread in the list and joins it.
            switch startThread({ [self] in acceptLoop(listener: listener, preferred: preferred) }) {
            case .success(let thread):
                state.acceptThreads.append(thread)
            case .failure(let failure):
                Posix.closeDescriptor(listener)
                throw failure
            }
        }
        return port
    }

    /// Marks a node down (skipped for new connections; its open relayed connections are closed at once, as a
    /// balancer does when a health check fails) or up again. A node index out of range is ignored.
    /// - Parameters:
    ///   - node: the node index.
    ///   - down: true to take it out, false to put it back.
    public func setDown(_ node: Int, _ down: Bool) {
        state.withLock { state in
            guard state.down.indices.contains(node) else { return }
            state.down[node] = down
            guard down else { return }
            for relay in state.relays.values where relay.node == node { relay.wake() }
        }
    }

    /// Relayed connections open now, per node (index = node). For tests and diagnostics. A connection counts
    /// until its relay thread has noticed its end, so a count drops shortly after the close, not at once.
    public var openConnections: [Int] {
        state.withLock { state in
            var counts = Array(repeating: 0, count: backends.count)
            for relay in state.relays.values { counts[relay.node] += 1 }
            return counts
        }
    }

    /// Closes every front port and relayed connection and joins the threads (waits up to an accept thread's
    /// poll interval, 50 ms, plus a pending backend connect, at most 1 s). Idempotent.
    public func shutdown() {
        shutdownDone.withLock { done in
            guard !done else { return }
            done = true
            let acceptThreads = state.withLock { state in
                // One critical section with the relays' registration check: none can slip in unwoken.
                state.stopping = true
                for relay in state.relays.values { relay.wake() }
                defer { state.acceptThreads = [] }
                return state.acceptThreads
            }
            for thread in acceptThreads { pthread_join(thread, nil) }
            // No accept thread is left to start relays or join finished ones, so this list is final.
            let relayThreads = state.withLock { state in
                defer {
                    state.relayThreads = [:]
                    state.finishedRelayThreads = []
                }
                return Array(state.relayThreads.values) + state.finishedRelayThreads
            }
            for thread in relayThreads { pthread_join(thread, nil) }
        }
    }

    // MARK: - Accept thread

    /// Owns `listener` and closes it on the way out.
    private func acceptLoop(listener: Int32, preferred: Int) {
        defer { Posix.closeDescriptor(listener) }
        while true {
            joinFinishedRelays()
            if state.withLock({ $0.stopping }) { return }
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            // A short timeout rather than a wake-up pipe: the stop flag is seen within 50 ms.
            guard poll(&entry, 1, 50) > 0 else { continue }
            let client = acceptCloseOnExec(listener)
            guard client >= 0 else {
                // Out of descriptors or memory: the connection stays queued and poll would answer at once.
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) { usleep(50_000) }
                continue
            }
            dispatch(client: client, preferred: preferred)
        }
    }

    /// Hands `client` to a relay thread towards the first node that takes it, or closes it.
    private func dispatch(client: Int32, preferred: Int) {
        setNoDelay(client)
        for step in 0..<backends.count {
            let node = (preferred + step) % backends.count
            switch state.withLock({ state -> Bool? in state.stopping ? nil : state.down[node] }) {
            case nil:
                Posix.closeDescriptor(client)
                return
            case true?:
                continue
            case false?:
                break
            }
            guard let backend = connectToLoopback(port: backends[node]) else { continue }
            switch handOff(client: client, backend: backend, node: node) {
            case .handed:
                return
            case .nodeDown:
                Posix.closeDescriptor(backend)
            case .stopping, .noThread:
                Posix.closeDescriptor(backend)
                Posix.closeDescriptor(client)
                return
            }
        }
        Posix.closeDescriptor(client)
    }

    private enum HandOff { case handed, nodeDown, stopping, noThread }

    /// Registers the pair and starts its relay thread, which owns both descriptors from then on. Down and
    /// stopping are checked again here, under the lock setDown and shutdown hold while they wake relays.
    private func handOff(client: Int32, backend: Int32, node: Int) -> HandOff {
        state.withLock { state in
            if state.stopping { return .stopping }
            if state.down[node] { return .nodeDown }
            let id = state.nextRelayID
            state.nextRelayID += 1
            state.relays[id] = Relay(node: node, client: client, backend: backend)
            // Started under the lock, so the thread cannot finish before it is listed for joining.
            switch startThread({ [self] in relayLoop(id: id, client: client, backend: backend) }) {
            case .success(let thread):
                state.relayThreads[id] = thread
                return .handed
            case .failure:
                state.relays[id] = nil
                return .noThread
            }
        }
    }

    /// Joins relay threads that have ended, so a long run does not keep their stacks.
    private func joinFinishedRelays() {
        let finished = state.withLock { state in
            defer { state.finishedRelayThreads = [] }
            return state.finishedRelayThreads
        }
        for thread in finished { pthread_join(thread, nil) }
    }

    // MARK: - Relay thread

    /// Copies bytes both ways until both sides have ended, then closes both descriptors (it owns them). A side's
    /// FIN is passed on once the bytes before it are delivered, and the other direction goes on (half-close, RFC
    /// 9293 3.6) for at most ``halfClosedLinger`` seconds. Non-blocking writes with one pending chunk per direction:
    /// a blocking write could deadlock when both ends send more than the socket buffers hold while neither reads.
    private func relayLoop(id: UInt64, client: Int32, backend: Int32) {
        // MSG_NOSIGNAL covers send(); this covers anything else that might write to a closed socket.
        Posix.blockBrokenPipeSignal()
        let toBackend = Transfer(from: client, to: backend)
        let toClient = Transfer(from: backend, to: client)
        // Set once the first direction is over: the other may go on until then.
        var halfClosedUntil: ContinuousClock.Instant?
        relaying: while true {
            if toBackend.isDone, toClient.isDone { break }
            if let halfClosedUntil, ContinuousClock.now >= halfClosedUntil { break }
            var descriptors = [
                pollfd(fd: client, events: events(reading: toBackend, writing: toClient), revents: 0),
                pollfd(fd: backend, events: events(reading: toClient, writing: toBackend), revents: 0),
            ]
            // An entry with nothing to wait for is left out: poll reports POLLHUP of a socket shut both ways
            // whatever its events, which would spin this loop.
            for index in descriptors.indices where descriptors[index].events == 0 { descriptors[index].fd = -1 }
            let ready = poll(&descriptors, 2, Posix.pollTimeout(until: halfClosedUntil))
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            let broken = Int16(POLLERR) | Int16(POLLNVAL)
            if descriptors.contains(where: { $0.revents & broken != 0 }) { break }
            for (transfer, source) in [(toBackend, descriptors[0]), (toClient, descriptors[1])] {
                // A FIN, also one behind a POLLHUP (a wake-up from setDown or shutdown), reads as an EOF.
                if !transfer.ended, !transfer.pending, source.revents & (Int16(POLLIN) | Int16(POLLHUP)) != 0 {
                    switch transfer.fill() {
                    case .moved: break
                    case .ended: transfer.ended = true
                    case .failed: break relaying
                    }
                }
                // Written at once rather than after another poll: the target is usually writable.
                if transfer.pending, transfer.flush() == .failed { break relaying }
                if transfer.ended, !transfer.pending, !transfer.finSent {
                    shutdownSending(transfer.target)
                    transfer.finSent = true
                    halfClosedUntil = halfClosedUntil ?? .now + .seconds(Self.halfClosedLinger)
                }
            }
        }
        state.withLock { state in
            // Unlisted before the close, so setDown and shutdown never touch a closed (maybe reused) number.
            state.relays[id] = nil
            if let thread = state.relayThreads.removeValue(forKey: id) { state.finishedRelayThreads.append(thread) }
        }
        Posix.closeDescriptor(client)
        Posix.closeDescriptor(backend)
    }

    /// Read the source while its chunk is delivered and it has not ended; write the target while a chunk waits.
    private func events(reading: Transfer, writing: Transfer) -> Int16 {
        var events: Int16 = 0
        if !reading.ended, !reading.pending { events |= Int16(POLLIN) }
        if writing.pending { events |= Int16(POLLOUT) }
        return events
    }
}

/// The balancer's shared state, behind one lock.
private struct BalancerState {
    var down: [Bool]
    var stopping = false
    var nextRelayID: UInt64 = 0
    /// Relayed connections; their descriptors stay open while listed (the relay thread unlists, then closes).
    var relays: [UInt64: Relay] = [:]
    /// Running relay threads that nobody has taken for joining yet.
    var relayThreads: [UInt64: pthread_t] = [:]
    /// Relay threads that have ended their work, to be joined once by whoever takes them from this list.
    var finishedRelayThreads: [pthread_t] = []
    var acceptThreads: [pthread_t] = []
}

/// One relayed connection's descriptors, owned by its relay thread.
private struct Relay {
    let node: Int
    let client: Int32
    let backend: Int32

    /// Makes the relay thread's poll return (both sockets read as ended, writes fail) and the client see its
    /// connection end now (FIN), without closing: only the owner closes. Call only while the relay is listed,
    /// under the state lock.
    func wake() {
        _ = shutdown(client, Int32(SHUT_RDWR))
        _ = shutdown(backend, Int32(SHUT_RDWR))
    }
}

/// Bytes read from one socket and not yet written to the other: at most one 64 KiB chunk.
private final class Transfer {
    enum Outcome { case moved, ended, failed }

    static let capacity = 64 * 1024
    let source: Int32
    let target: Int32
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: Transfer.capacity, alignment: 16)
    private var start = 0
    private var end = 0
    /// The source's FIN (or a wake-up) was read: nothing more comes from it.
    var ended = false
    /// The FIN was passed on to the target (`shutdown(SHUT_WR)`), after every byte before it.
    var finSent = false

    init(from source: Int32, to target: Int32) {
        self.source = source
        self.target = target
    }

    deinit { buffer.deallocate() }

    var pending: Bool { start < end }
    /// Ended and passed on: this direction is over.
    var isDone: Bool { ended && finSent }

    /// Reads one chunk. `.ended` is the peer's EOF (deliver what is pending, then close); `.failed` an error.
    func fill() -> Outcome {
        while true {
            let count = recv(source, buffer, Transfer.capacity, 0)
            if count > 0 {
                start = 0
                end = count
                return .moved
            }
            if count == 0 { return .ended }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .moved
            default: return .failed
            }
        }
    }

    /// Writes as much of the pending chunk as the target takes now.
    func flush() -> Outcome {
        while start < end {
            let count = send(target, buffer + start, end - start, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                start += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .moved
            default: return .failed
            }
        }
        return .moved
    }
}

// MARK: - Sockets and threads

/// Sends a FIN on `descriptor`; reading goes on.
private func shutdownSending(_ descriptor: Int32) {
    _ = shutdown(descriptor, Int32(SHUT_WR))
}

/// 127.0.0.1 on `port`.
private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    return address
}

/// A non-blocking, close-on-exec TCP socket: child `ringer serve` processes must never inherit it.
private func newSocket() -> Int32 {
    socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
}

/// A listening socket on 127.0.0.1 at a kernel-chosen port.
/// - Throws: ``PosixError`` from `socket`, `bind`, `listen` or `getsockname`.
private func listenOnLoopback() throws(PosixError) -> (descriptor: Int32, port: Int) {
    let descriptor = newSocket()
    guard descriptor >= 0 else { throw PosixError("socket") }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let failedCall: String? = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            if bind(descriptor, generic, length) != 0 { return "bind" }
            if listen(descriptor, 128) != 0 { return "listen" }
            if getsockname(descriptor, generic, &length) != 0 { return "getsockname" }
            return nil
        }
    }
    if let failedCall {
        let failure = PosixError(failedCall)
        Posix.closeDescriptor(descriptor)
        throw failure
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// Connects to 127.0.0.1:`port`, waiting at most 1 s (a node whose accept queue is full drops the SYN
/// rather than refusing); nil when refused, timed out or failed, which sends the client to the next node.
private func connectToLoopback(port: Int) -> Int32? {
    let descriptor = newSocket()
    guard descriptor >= 0 else { return nil }
    var address = loopbackAddress(port: port)
    let started = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    var connected = started == 0
    if !connected, errno == EINPROGRESS {
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        var result: Int32
        repeat { result = poll(&entry, 1, 1_000) } while result < 0 && errno == EINTR
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        connected = result > 0 && getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }
    guard connected else {
        Posix.closeDescriptor(descriptor)
        return nil
    }
    setNoDelay(descriptor)
    return descriptor
}

/// `accept4`'s C signature. Glibc's Swift module hides `accept4` (it is declared only under `_GNU_SOURCE`),
/// so it is looked up at run time; Swift cannot call a C function with the wrong convention this way.
private typealias Accept4 =
    @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

/// glibc's `accept4` (there since 2.10; nil only on a C library without it). `dlsym(RTLD_DEFAULT, …)`, whose
/// handle is 0 on glibc.
private let accept4Function: Accept4? = dlsym(nil, "accept4").map { unsafeBitCast($0, to: Accept4.self) }

/// Accepts one connection, non-blocking and close-on-exec from the start: `accept` then `fcntl` would leave a
/// moment in which a `ringer serve` being spawned on another thread inherits the socket.
/// - Returns: the descriptor, or -1 with `errno` set.
private func acceptCloseOnExec(_ listener: Int32) -> Int32 {
    if let accept4Function {
        return accept4Function(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
    }
    let descriptor = accept(listener, nil, nil)
    if descriptor >= 0, !Posix.configure(descriptor) {
        let failure = errno
        Posix.closeDescriptor(descriptor)
        errno = failure
        return -1
    }
    return descriptor
}

/// TCP_NODELAY, as HAProxy sets on both sides: relayed small frames must not wait for Nagle's algorithm.
private func setNoDelay(_ descriptor: Int32) {
    var one: Int32 = 1
    _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

/// A thread's closure, carried through `pthread_create`'s argument.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Starts a joinable thread (real threads, not tasks: they block in `poll`).
/// - Returns: the thread, or the ``PosixError`` of `pthread_create`.
private func startThread(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, PosixError> {
    let argument = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { argument in
            guard let argument else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, argument)
    guard result == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(argument).release()
        // pthread_create returns its error rather than setting errno.
        errno = result
        return .failure(PosixError("pthread_create"))
    }
    return .success(thread)
}
