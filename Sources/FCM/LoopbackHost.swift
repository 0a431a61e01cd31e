import Foundation

/// Which URLs may be plain `http://`: only loopback ones (a sandbox on this machine), never a remote
/// host, where a bearer token or a grant would cross the network in clear text.
enum LoopbackHost {
    /// True for `localhost`, any 127.0.0.0/8 address and `::1` (with or without brackets).
    static func contains(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { UInt8($0) != nil }
    }

    /// Checks a base or token URL: `https://` with a host, or `http://` to a loopback host.
    /// - Returns: nil when acceptable, else what is wrong (for an error message; the URL is not secret).
    static func problem(withURL text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            !host.isEmpty
        else {
            return "is not an absolute URL with a host"
        }
        guard url.user == nil, url.password == nil else { return "must not carry a user name or password" }
        switch scheme {
        case "https": return nil
        case "http": return contains(host) ? nil : "uses http:// to a host that is not loopback; use https://"
        default: return "has scheme \(scheme); use https://"
        }
    }
}
