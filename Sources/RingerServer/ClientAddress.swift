import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as the IPv4-mapped IPv6 address, RFC 4291 §2.5.5.2), so one
/// comparison serves both families and `::ffff:10.0.0.1` from a dual-stack socket equals `10.0.0.1`.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// Network byte order.
    let bytes: [UInt8]

    /// Parses dotted-quad IPv4 or RFC 4291 §2.2 IPv6 text (`inet_pton`); an IPv6 zone (`%eth0`) is ignored.
    /// - Returns: nil for anything else (host names, ports, blanks).
    init?(_ text: String) {
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

    /// True for an IPv4 address (IPv4-mapped).
    var isIPv4: Bool { bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff }

    /// Dotted quad for IPv4, RFC 5952 text for IPv6.
    var description: String {
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
    var limitKey: String {
        guard !isIPv4 else { return description }
        return IPAddress(bytes: Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)).description + "/64"
    }

    /// The first `bits` bits, the rest zero.
    func masked(_ bits: Int) -> IPAddress {
        IPAddress(bytes: bytes.enumerated().map { index, byte in
            let keep = min(8, max(0, bits - index * 8))
            return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        })
    }
}

/// An address range in CIDR notation (RFC 4632 §3.1; RFC 4291 §2.3 for IPv6): `10.0.0.0/8`, `fd00::/8`, or a
/// single address (`192.0.2.7`, a /32 or /128). A `--trusted-proxy` of ``ServerConfiguration``.
public struct AddressRange: Sendable, CustomStringConvertible {
    private let network: IPAddress
    /// Prefix length over the 16-byte form (IPv4 prefixes are counted after the 96-bit mapping).
    private let bits: Int
    /// The range as it was written.
    public let description: String

    /// Parses a range or a single address.
    /// - Parameter text: `address` or `address/prefix-length`, IPv4 or IPv6.
    /// - Throws: ``ConfigurationError`` (naming `--trusted-proxy`) for text that is not an address, or an
    ///   address whose prefix length does not fit its family.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let address = IPAddress(parts[0]) else {
            throw ConfigurationError("--trusted-proxy \(text) is not an IP address or CIDR range")
        }
        let family = address.isIPv4 ? 32 : 128
        var length = family
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...family).contains(value) else {
                throw ConfigurationError("--trusted-proxy \(text): the prefix length must be 0 to \(family)")
            }
            length = value
        }
        bits = length + (address.isIPv4 ? 96 : 0)
        network = address.masked(bits)
        description = text
    }

    /// Whether `address` lies in the range.
    func contains(_ address: IPAddress) -> Bool { address.masked(bits) == network }
}

/// Finds the client behind a request: the socket's peer, or, when that peer is a configured trusted proxy
/// (`--trusted-proxy`), the right-most `X-Forwarded-For` address that is not itself a trusted proxy.
///
/// Right-most, because every proxy appends the address it received from; the entries left of the first
/// untrusted one were written by the client and prove nothing (RFC 7239 §5.2 and §8.3 for `Forwarded`,
/// of which `X-Forwarded-For` is the de-facto predecessor).
struct ClientAddressResolver: Sendable {
    /// The proxies whose `X-Forwarded-For` is believed.
    let trusted: [AddressRange]

    /// The client's address.
    /// - Parameters:
    ///   - peer: the socket's peer address as text; nil or unparsable when the server could not tell.
    ///   - forwardedFor: the request's `X-Forwarded-For` (repeated headers joined with commas).
    /// - Returns: the address; nil when even the peer is unknown.
    func client(peer: String?, forwardedFor: String?) -> IPAddress? {
        guard let peer = peer.flatMap(IPAddress.init) else { return nil }
        guard isTrusted(peer), let forwardedFor else { return peer }
        var nearest = peer
        for entry in forwardedFor.split(separator: ",").reversed() {
            // An entry that is not an address (a name, "unknown", garbage): the last proxy we believe is the
            // nearest client we can name.
            guard let hop = IPAddress(entry.trimmingCharacters(in: .whitespaces)) else { return nearest }
            guard isTrusted(hop) else { return hop }
            nearest = hop
        }
        return nearest
    }

    private func isTrusted(_ address: IPAddress) -> Bool { trusted.contains { $0.contains(address) } }
}
