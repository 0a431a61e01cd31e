import CHiredis
public import Foundation

/// One blocking connection to Redis for commands (`SET`, `GET`, `INCR`, `PUBLISH`, …); pub/sub has its own
/// ``RedisSubscriber``.
///
/// It connects at the first command (or ``connect()``), then logs in with `AUTH` and picks the URL's
/// database with `SELECT`. A command finding the connection broken (an earlier failure, or Redis closed it
/// while idle, e.g. on a restart) reconnects once before it is sent, and fails if that connect fails; the
/// next command tries again. A command whose connection breaks while it is in flight is not sent again (it
/// may have run): it throws ``RedisError/connectionLost(endpoint:reason:)``.
///
/// Thread-safe: a lock makes commands take turns, each holding the connection for its whole round trip
/// (use several connections for commands in parallel). Blocks the calling thread, at most about
/// `connectTimeout + commandTimeout` seconds per command.
public final class RedisConnection: @unchecked Sendable {
    // @unchecked: `context` is only touched while holding `lock`.
    /// Where to connect and how to log in.
    public let url: RedisURL
    /// Seconds to wait for TCP to connect.
    public let connectTimeout: TimeInterval
    /// Seconds a command may wait without Redis sending a byte (each read and write, hiredis' timeout).
    public let commandTimeout: TimeInterval

    private let lock = NSLock()
    private var context: HiredisContext?

    /// Creates the connection without connecting.
    /// - Parameters:
    ///   - url: server and login.
    ///   - connectTimeout: seconds for TCP to connect (at least 1 ms).
    ///   - commandTimeout: seconds a command may wait for Redis (at least 1 ms).
    public init(url: RedisURL, connectTimeout: TimeInterval = 5, commandTimeout: TimeInterval = 5) {
        self.url = url
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    /// Connects now if not connected (or broken), so a bad address or password shows at startup.
    /// - Throws: what `command(_:)` (bytes) throws for connecting: ``RedisError/cannotConnect(endpoint:reason:)``,
    ///   ``RedisError/timeout(endpoint:operation:seconds:)``, ``RedisError/server(message:)`` when `AUTH` or
    ///   `SELECT` is refused, ``RedisError/connectionLost(endpoint:reason:)``.
    public func connect() throws(RedisError) {
        lock.lock()
        defer { lock.unlock() }
        _ = try usableContext()
    }

    /// Sends a command of text arguments (UTF-8), e.g. `["SET", "presence:alice", "node-2", "EX", "30"]`.
    /// - Parameter arguments: the command name, then its arguments.
    /// - Returns: Redis' reply (never a top-level error reply: that is thrown).
    /// - Throws: as `command(_:)` (bytes).
    public func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(arguments.map { Data($0.utf8) })
    }

    /// Sends a command of byte arguments (binary safe: any bytes, NUL included).
    /// - Parameter arguments: the command name, then its arguments.
    /// - Returns: Redis' reply (never a top-level error reply: that is thrown).
    /// - Throws: ``RedisError/invalidCommand(reason:)`` for no arguments; ``RedisError/server(message:)``
    ///   for Redis' error reply (the connection stays usable); ``RedisError/cannotConnect(endpoint:reason:)``
    ///   or ``RedisError/timeout(endpoint:operation:seconds:)`` when (re)connecting fails;
    ///   ``RedisError/connectionLost(endpoint:reason:)``, ``RedisError/timeout(endpoint:operation:seconds:)``
    ///   or ``RedisError/protocolError(reason:)`` when the round trip fails (the next command reconnects).
    public func command(_ arguments: [Data]) throws(RedisError) -> RedisReply {
        guard !arguments.isEmpty else { throw .invalidCommand(reason: "a command needs at least its name") }
        lock.lock()
        defer { lock.unlock() }
        let context = try usableContext()
        let reply: RedisReply
        do {
            reply = try context.exchange(arguments, timeout: commandTimeout)
        } catch {
            // hiredis refuses a context after any I/O or protocol error, and a timed-out reply may still come.
            self.context = nil
            throw error
        }
        if case .error(let message) = reply { throw .server(message: message) }
        return reply
    }

    /// Closes the connection; the next command connects again.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        context = nil
    }

    /// The open context, or a new logged-in one in place of a missing or broken one. Caller holds `lock`.
    private func usableContext() throws(RedisError) -> HiredisContext {
        if let context, !context.isBroken, !context.isUnusableWhileIdle() { return context }
        context = nil
        let fresh = try HiredisContext.connect(to: url, timeout: connectTimeout)
        guard fresh.setTimeout(commandTimeout) else {
            throw .system(reason: "could not set the socket timeout: \(fresh.errorText)")
        }
        for login in loginCommands() {
            if case .error(let message) = try fresh.exchange(login, timeout: commandTimeout) {
                throw .server(message: message)
            }
        }
        context = fresh
        return fresh
    }

    /// `AUTH` (Redis 6 form with a user) and `SELECT`, as the URL asks.
    private func loginCommands() -> [[Data]] {
        var commands: [[Data]] = []
        if let password = url.password {
            commands.append([Data("AUTH".utf8)] + (url.user.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)])
        }
        if url.database != 0 {
            commands.append([Data("SELECT".utf8), Data(String(url.database).utf8)])
        }
        return commands
    }
}
