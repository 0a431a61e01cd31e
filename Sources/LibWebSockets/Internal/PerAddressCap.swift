/// Counts the open connections of each peer address against a cap: a pure value, the acceptor's bookkeeping.
///
/// An address is the peer's numeric IP text (no port). Loopback addresses are exempt unless `capsLoopback`:
/// see ``WebServer/Configuration/capsLoopbackConnections``.
struct PerAddressCap {
    /// Most connections one address may hold.
    let limit: Int
    let capsLoopback: Bool
    private var counts: [String: Int] = [:]

    /// - Parameters:
    ///   - limit: Most connections per address (at least 1).
    ///   - capsLoopback: Whether loopback peers count too.
    init(limit: Int, capsLoopback: Bool) {
        self.limit = max(1, limit)
        self.capsLoopback = capsLoopback
    }

    /// Addresses holding at least one counted connection.
    var addresses: Int { counts.count }

    /// Whether a new connection from `address` may stay; when it may, it is counted (if not exempt).
    /// - Returns: `.refused` at the cap, `.exempt` for an uncounted loopback peer, else `.counted`.
    mutating func admit(_ address: String) -> Admission {
        if !capsLoopback && Self.isLoopback(address) { return .exempt }
        let count = counts[address, default: 0]
        guard count < limit else { return .refused }
        counts[address] = count + 1
        return .counted
    }

    /// A counted connection of `address` closed.
    mutating func release(_ address: String) {
        guard let count = counts[address] else { return }
        counts[address] = count > 1 ? count - 1 : nil
    }

    /// What ``admit(_:)`` decided.
    enum Admission: Equatable {
        case counted, exempt, refused
    }

    /// 127.0.0.0/8 (RFC 1122 §3.2.1.3), ::1 (RFC 4291 §2.5.3) and their IPv4-mapped form.
    static func isLoopback(_ address: String) -> Bool {
        let lowered = address.lowercased()
        return lowered.hasPrefix("127.") || lowered == "::1" || lowered.hasPrefix("::ffff:127.")
    }
}
