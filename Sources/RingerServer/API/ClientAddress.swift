import Foundation
import RingerHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        guard let peer = peer.flatMap({ IPAddress($0) }) else { return nil }
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
