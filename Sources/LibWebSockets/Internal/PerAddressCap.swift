import RingerHTTP

/// Counts the open connections of each client against a cap: a pure value, the acceptor's bookkeeping.
///
/// A client is its peer address's ``IPAddress/limitKey``: the address for IPv4 (an IPv4-mapped IPv6 peer counts as
/// its IPv4 address), the /64 for IPv6, since one subscriber is routinely handed a whole /64 (RFC 6177) and could
/// otherwise open the cap's worth from each of 2^64 addresses. Loopback addresses are exempt unless
/// `capsLoopback`: see ``WebServer/Configuration/capsLoopbackConnections``.
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
    /// - Parameter address: The peer's numeric address text (`getnameinfo`), IPv4 or IPv6.
    /// - Returns: `.refused` at the cap, `.exempt` for an uncounted loopback peer, else `.counted` with the key the
    ///   connection is counted under, for ``release(_:)``.
    mutating func admit(_ address: String) -> Admission {
        if !capsLoopback && Self.isLoopback(address) { return .exempt }
        let key = Self.key(of: address)
        let count = counts[key, default: 0]
        guard count < limit else { return .refused(key) }
        counts[key] = count + 1
        return .counted(key)
    }

    /// A counted connection closed.
    /// - Parameter key: The key ``admit(_:)`` counted it under.
    mutating func release(_ key: String) {
        guard let count = counts[key] else { return }
        counts[key] = count > 1 ? count - 1 : nil
    }

    /// What ``admit(_:)`` decided, with the client's key where it was counted or refused.
    enum Admission: Equatable {
        case counted(String)
        case exempt
        case refused(String)
    }

    /// The key a peer address is counted under: ``IPAddress/limitKey``, or the text itself if it is no address.
    static func key(of address: String) -> String {
        IPAddress(address)?.limitKey ?? address
    }

    /// 127.0.0.0/8 (RFC 1122 §3.2.1.3), ::1 (RFC 4291 §2.5.3) and their IPv4-mapped form.
    static func isLoopback(_ address: String) -> Bool {
        let lowered = address.lowercased()
        return lowered.hasPrefix("127.") || lowered == "::1" || lowered.hasPrefix("::ffff:127.")
    }
}
