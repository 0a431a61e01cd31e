import RingerHTTP
import RingerSupport
import SocketSupport

/// State shared by the server object, the accept thread and every connection thread.
///
/// Thread-safety: immutable configuration plus two locked boxes; the registry lock is never held while
/// taking a mailbox lock in the other order, so the two cannot deadlock.
final class ServerContext: Sendable {
    /// Values the fault-injection hooks change while the server runs.
    struct Controls {
        /// Advertised SETTINGS_MAX_CONCURRENT_STREAMS for connections made from now on.
        var maxConcurrentStreams: Int
        /// Requests each connection serves before its GOAWAY; nil for no limit.
        var goAwayAfterRequests: Int?
        /// How many more connections may still say GOAWAY for ``goAwayAfterRequests``; nil for all of them.
        var goAwayConnectionsLeft: Int?
        /// The request number on a connection at which it is cut (TCP closed, no GOAWAY); nil for never.
        var closeAtRequest: Int?
        /// How many more connections may still be cut for ``closeAtRequest``; nil for all of them.
        var closeConnectionsLeft: Int?

        /// Takes one use from a per-connection fault budget.
        /// - Returns: false when the budget is spent (nil is unlimited).
        static func take(_ budget: inout Int?) -> Bool {
            guard let left = budget else { return true }
            guard left > 0 else { return false }
            budget = left - 1
            return true
        }
    }

    /// One running connection thread.
    struct Entry {
        let mailbox: ConnectionMailbox
        let thread: NativeThread
    }

    private struct Registry {
        var accepting = true
        var nextID: UInt64 = 0
        var connections: [UInt64: Entry] = [:]
    }

    let configuration: HTTP2Server.Configuration
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let tls: TLSContext
    let controls: LockedValue<Controls>
    /// Counters since the server was created; outlives this context.
    let counters: LockedValue<HTTP2Server.Statistics>
    private let registry = LockedValue(Registry())

    init(
        configuration: HTTP2Server.Configuration, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        tls: TLSContext, controls: LockedValue<Controls>, counters: LockedValue<HTTP2Server.Statistics>
    ) {
        self.configuration = configuration
        self.handler = handler
        self.tls = tls
        self.controls = controls
        self.counters = counters
    }

    /// Registers an accepted socket and starts its connection thread; closes the socket instead when the
    /// server is stopping or resources are exhausted.
    func startConnection(descriptor: Int32) {
        guard let mailbox = try? ConnectionMailbox() else {
            Posix.closeDescriptor(descriptor)
            return
        }
        let started: Bool = registry.withLock { registry in
            guard registry.accepting else { return false }
            let id = registry.nextID
            registry.nextID += 1
            let connection = Connection(id: id, descriptor: descriptor, mailbox: mailbox, context: self)
            // The new thread deregisters itself through this same lock, so it waits until the entry exists.
            guard case .success(let thread) = NativeThread.start({ connection.run() }) else { return false }
            registry.connections[id] = Entry(mailbox: mailbox, thread: thread)
            return true
        }
        if started {
            counters.withLock { $0.connectionsAccepted += 1 }
        } else {
            Posix.closeDescriptor(descriptor)
            mailbox.close()
        }
    }

    /// Called by a connection thread as its last act. When the entry is still registered nobody will join
    /// the thread, so it detaches itself; otherwise ``stopAccepting()`` took it and will join it.
    func connectionFinished(id: UInt64) {
        registry.withLock { registry in
            if registry.connections.removeValue(forKey: id) != nil {
                NativeThread.detachCurrent()
            }
        }
    }

    /// The mailboxes of every open connection, for broadcasting a hook.
    func mailboxes() -> [ConnectionMailbox] {
        registry.withLock { registry in registry.connections.values.map(\.mailbox) }
    }

    /// Refuses new connections from now on and hands over every open one, whose threads the caller joins.
    func stopAccepting() -> [Entry] {
        registry.withLock { registry in
            registry.accepting = false
            let entries = Array(registry.connections.values)
            registry.connections.removeAll()
            return entries
        }
    }
}
