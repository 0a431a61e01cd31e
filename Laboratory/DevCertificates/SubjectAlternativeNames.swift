#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns host names and addresses into a subjectAltName value (RFC 5280 §4.2.1.6).
///
/// Numeric hosts become `IP:` entries (TLS clients match addresses only against iPAddress names,
/// RFC 6125 §6.2.1), others `DNS:` entries. Each host is validated first, so nothing a caller passes
/// can inject syntax into the OpenSSL configuration string.
enum SubjectAlternativeNames {
    /// The `subjectAltName` configuration value, e.g. `DNS:localhost,IP:127.0.0.1,IP:::1`.
    static func configValue(for hosts: [String]) throws(DevCertificateError) -> String {
        guard !hosts.isEmpty else { throw DevCertificateError.invalidArgument("no hosts for the certificate") }
        var entries: [String] = []
        for host in hosts {
            if isIPAddress(host) {
                entries.append("IP:\(host)")
            } else if isDNSName(host) {
                entries.append("DNS:\(host)")
            } else {
                throw DevCertificateError.invalidHost("\"\(host.prefix(64))\" is neither an IP address nor a DNS name")
            }
        }
        return entries.joined(separator: ",")
    }

    /// Whether `host` is a literal IPv4 or IPv6 address (no zone, no brackets).
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// Whether `host` is a DNS name of letters, digits and inner hyphens, with an optional `*.` first label.
    static func isDNSName(_ host: String) -> Bool {
        let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            let bytes = Array(label.utf8)
            guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-")
            else {
                return false
            }
            return bytes.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-")
            }
        }
    }
}
