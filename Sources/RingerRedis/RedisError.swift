public import Foundation

/// Why a Redis URL, connection or command failed. No case carries a password, and none quotes a URL or a
/// command's arguments (they may hold secrets or user data): descriptions are safe to log.
public enum RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not `redis://[[user]:password@]host[:port][/db]`; `reason` says which part is wrong.
    case invalidURL(reason: String)
    /// A `rediss://` URL: Debian 12's hiredis 0.14 has no TLS.
    case tlsUnsupported
    /// The command cannot be sent (no arguments).
    case invalidCommand(reason: String)
    /// No connection could be made to `endpoint` (`host:port`): refused, unreachable, name not found.
    case cannotConnect(endpoint: String, reason: String)
    /// An established connection broke (closed by Redis, reset, write failed); a command in flight may or
    /// may not have run.
    case connectionLost(endpoint: String, reason: String)
    /// `operation` (connect, reply, PING) got no answer from `endpoint` within `seconds`.
    case timeout(endpoint: String, operation: String, seconds: TimeInterval)
    /// Redis answered with an error reply; `message` is Redis' text verbatim, e.g. `WRONGTYPE Operation
    /// against a key holding the wrong kind of value`.
    case server(message: String)
    /// Redis sent bytes that are not RESP, or a reply of an unknown type.
    case protocolError(reason: String)
    /// A system call the client needs failed (e.g. `pipe: Too many open files`).
    case system(reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let reason):
            return "invalid Redis URL: \(reason); expected redis://[[user]:password@]host[:port][/db]"
        case .tlsUnsupported:
            return "rediss:// (TLS) is not supported: Debian's hiredis 0.14 has no TLS. Reach a TLS-only managed "
                + "Redis through a local TLS tunnel (stunnel or spiped) listening on loopback, and give its "
                + "redis://127.0.0.1:<port> URL instead"
        case .invalidCommand(let reason):
            return "invalid Redis command: \(reason)"
        case .cannotConnect(let endpoint, let reason):
            return "cannot connect to Redis at \(endpoint): \(reason)"
        case .connectionLost(let endpoint, let reason):
            return "connection to Redis at \(endpoint) lost: \(reason)"
        case .timeout(let endpoint, let operation, let seconds):
            return "Redis at \(endpoint): no answer to \(operation) within \(seconds) s"
        case .server(let message):
            return "Redis replied with an error: \(message)"
        case .protocolError(let reason):
            return "Redis protocol error: \(reason)"
        case .system(let reason):
            return "Redis client system error: \(reason)"
        }
    }
}
