public import RingerServer

/// A listen address as flags write it, `host:port`: the one parser of `serve --listen` and the sandbox's
/// `--listen`, `--fcm-listen` and `--fcm-http1-listen`.
///
/// RFC 3986 §3.2.2 writes an IPv6 host before a port in brackets (`[::1]:8080`); ``host`` is kept without
/// them, as getaddrinfo and libwebsockets take it.
public struct HostPort: Equatable, Sendable, CustomStringConvertible {
    /// A name or address, IPv6 without brackets; empty for every address.
    public let host: String
    /// 0…65535; 0 asks for a free port.
    public let port: Int

    /// - Parameters:
    ///   - host: a name or address, IPv6 without brackets.
    ///   - port: 0…65535.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`, `[v6]:port` (or, as before brackets were taught, a bare IPv6 host whose last
    /// `:` starts the port).
    /// - Parameters:
    ///   - text: the flag's value.
    ///   - flag: the flag, named in the error (`--listen`).
    /// - Throws: ``ConfigurationError`` without a port of 0…65535 or with unbalanced brackets.
    public init(_ text: String, flag: String) throws {
        let invalid = ConfigurationError("\(flag) must be host:port (an IPv6 host in brackets: [::]:8080), got \(text)")
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, let last = parts.last, let port = Int(last), (0...65535).contains(port) else {
            throw invalid
        }
        var host = parts.dropLast().joined(separator: ":")
        if host.hasPrefix("[") || host.hasSuffix("]") {
            guard host.count > 2, host.hasPrefix("["), host.hasSuffix("]") else { throw invalid }
            host = String(host.dropFirst().dropLast())
        }
        self.init(host: host, port: port)
    }

    /// `host:port`, an IPv6 host in brackets (RFC 3986 §3.2.2), as a URL's authority takes it.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
