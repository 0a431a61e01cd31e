#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as the IPv4-mapped IPv6 address, RFC 4291 §2.5.5.2), so one
/// comparison serves both families and `::ffff:10.0.0.1` from a dual-stack socket equals `10.0.0.1`. Shared by the
/// server's per-address rate limits and the web server's per-address connection cap, so both count one client alike.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// Network byte order.
    public let bytes: [UInt8]

    /// Parses dotted-quad IPv4 or RFC 4291 §2.2 IPv6 text (`inet_pton`); an IPv6 zone (`%eth0`) is ignored.
    /// - Returns: nil for anything else (host names, ports, blanks).
    public init?(_ text: String) {
        let plain = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 {
            bytes = [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, plain, &v6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: v6) { Array($0) }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a host the way a resolver would read it as a number, the older IPv4 forms included (`127.1`,
    /// `0x7f000001`, `2130706433`, `017700000001`: `inet_aton`'s, which `getaddrinfo` with `AI_NUMERICHOST` takes), so
    /// a URL cannot hide an address from a check in a form a connection would still use.
    /// - Returns: nil for a name that is not a number (a DNS name).
    public init?(numericHost host: String) {
        let plain = host.hasSuffix(".") ? String(host.dropLast()) : host
        if let address = IPAddress(plain) {
            self = address
            return
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(plain, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(
                first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                NI_NUMERICHOST) == 0
        else { return nil }
        guard let address = IPAddress(String(cString: buffer)) else { return nil }
        self = address
    }

    /// True for an IPv4 address (IPv4-mapped).
    public var isIPv4: Bool { bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff }

    /// Dotted quad for IPv4, RFC 5952 text for IPv6.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if isIPv4 {
            var v4 = in_addr()
            withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes[12...]) }
            _ = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
        } else {
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: bytes) }
            _ = inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key per-address limits count under: the address for IPv4, its /64 for IPv6, since one IPv6
    /// subscriber is routinely handed a whole /64 (RFC 6177) and could otherwise use a fresh address per try.
    public var limitKey: String {
        guard !isIPv4 else { return description }
        return IPAddress(bytes: Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)).description + "/64"
    }

    /// The first `bits` bits, the rest zero.
    public func masked(_ bits: Int) -> IPAddress {
        IPAddress(
            bytes: bytes.enumerated().map { index, byte in
                let keep = min(8, max(0, bits - index * 8))
                return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xff << (8 - keep))
            })
    }
}

extension IPAddress {
    /// The ranges no public service lives in (IANA special-purpose registries, RFC 6890): what a server making
    /// requests to addresses its clients name must not reach unless its operator allows it (SSRF). Each is a prefix
    /// and its length in bits of the 16-byte form (IPv4 ranges under `::ffff:0:0/96`).
    private static let nonPublic: [(IPAddress, Int)] = [
        ("0.0.0.0", 8), ("10.0.0.0", 8), ("100.64.0.0", 10), ("127.0.0.0", 8), ("169.254.0.0", 16),
        ("172.16.0.0", 12), ("192.0.0.0", 24), ("192.0.2.0", 24), ("192.168.0.0", 16), ("198.18.0.0", 15),
        ("198.51.100.0", 24), ("203.0.113.0", 24), ("224.0.0.0", 4), ("240.0.0.0", 4),
        ("::", 128), ("::1", 128), ("64:ff9b::", 96), ("64:ff9b:1::", 48), ("100::", 64), ("2001::", 23),
        ("2001:db8::", 32), ("fc00::", 7), ("fe80::", 10), ("ff00::", 8),
    ].map { text, bits in (IPAddress(text)!, text.contains(":") ? bits : bits + 96) }

    /// Whether the address is in no private, loopback, link-local, shared (CGNAT), documentation, multicast or other
    /// special-purpose range (RFC 6890 and its IPv4 and IPv6 registries): one a public service may have. An
    /// IPv4-mapped form counts as its IPv4 address; NAT64 prefixes, which could carry any IPv4 address, never count.
    public var isPublic: Bool {
        !Self.nonPublic.contains { prefix, bits in masked(bits) == prefix }
    }
}
