/// Where a request goes, split out of its absolute URL once, before it reaches the loop thread: the
/// connection key (scheme, host, port) and the HTTP/2 pseudo-header values (RFC 9113 §8.3.1).
struct RequestTarget: Sendable, Hashable {
    /// `https` or `http`, lowercased.
    let scheme: String
    /// Host name or IP address as written, lowercased, without IPv6 brackets.
    let host: String
    /// TCP port: the URL's, else 443 for https and 80 for http.
    let port: Int
    /// `:authority`: host and port as the URL wrote them.
    let authority: String
    /// `:path`: path and query, `/` when the URL has none; the fragment is dropped.
    private(set) var path: String
    /// The URL up to the end of its authority, as written: how ``parse(url:reusing:)`` knows a URL of the same origin.
    let urlPrefix: String

    /// True for `https` (TLS with ALPN h2), false for `http` (h2c with prior knowledge).
    var isSecure: Bool { scheme == "https" }

    /// The connection key: `scheme://host:port`. Stored, not computed: the loop keys its queues and connections
    /// by it for every request.
    let origin: String

    /// True when ``host`` is an IPv4 or IPv6 literal (no SNI, and the certificate is matched by IP).
    var hostIsAddress: Bool {
        host.contains(":") || (!host.isEmpty && host.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2E })
    }

    /// Splits an absolute `http(s)://` URL.
    /// - Parameter url: a URL that passed ``HTTP2Request`` validation (ASCII, no spaces or controls).
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` for a missing host, a bad port or user info.
    init(url: String) throws(HTTP2ClientError) {
        let bytes = Array(url.utf8)
        guard let schemeEnd = Self.find("://", in: bytes, from: 0) else {
            throw .invalidRequest("URL has no scheme")
        }
        scheme = String(decoding: bytes[..<schemeEnd].map(ASCII.lowercased), as: UTF8.self)
        guard scheme == "https" || scheme == "http" else { throw .invalidRequest("URL scheme must be https or http") }
        let authorityStart = schemeEnd + 3
        let authorityEnd =
            bytes[authorityStart...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            }
            ?? bytes.count
        let authorityBytes = Array(bytes[authorityStart..<authorityEnd])
        guard !authorityBytes.contains(UInt8(ascii: "@")) else { throw .invalidRequest("URL must not carry user info") }
        authority = String(decoding: authorityBytes, as: UTF8.self)
        var hostBytes = authorityBytes[...]
        var portBytes: ArraySlice<UInt8> = []
        if authorityBytes.first == UInt8(ascii: "[") {
            guard let close = authorityBytes.firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidRequest("URL has an unclosed IPv6 address")
            }
            hostBytes = authorityBytes[1..<close]
            let rest = authorityBytes[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { throw .invalidRequest("URL has junk after its IPv6 address") }
                portBytes = rest.dropFirst()
            }
        } else if let colon = authorityBytes.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = authorityBytes[..<colon]
            portBytes = authorityBytes[(colon + 1)...]
        }
        guard !hostBytes.isEmpty else { throw .invalidRequest("URL has no host") }
        host = String(decoding: hostBytes.map(ASCII.lowercased), as: UTF8.self)
        if portBytes.isEmpty {
            port = scheme == "https" ? 443 : 80
        } else {
            guard portBytes.count <= 5, portBytes.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(String(decoding: portBytes, as: UTF8.self)), (1...65_535).contains(value)
            else {
                throw .invalidRequest("URL port must be 1-65535")
            }
            port = value
        }
        origin = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        urlPrefix = String(decoding: bytes[..<authorityEnd], as: UTF8.self)
        let pathEnd = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        let pathBytes = bytes[authorityEnd..<pathEnd]
        if pathBytes.isEmpty {
            path = "/"
        } else if pathBytes.first == UInt8(ascii: "?") {
            path = "/" + String(decoding: pathBytes, as: UTF8.self)
        } else {
            path = String(decoding: pathBytes, as: UTF8.self)
        }
    }

    /// Splits `url` as ``init(url:)`` does, taking everything but the path from `known` when `url` starts with the
    /// same scheme and authority, as written, followed by `/`: a client sends most requests to one origin (one APNs
    /// or FCM host), and the full split costs several allocations per request.
    /// - Parameters:
    ///   - url: as for ``init(url:)``.
    ///   - known: an earlier request's target, if any.
    /// - Returns: the target, and whether `known` was reused.
    /// - Throws: as ``init(url:)``.
    static func parse(
        url: String, reusing known: RequestTarget?
    ) throws(HTTP2ClientError) -> (
        target: RequestTarget, reused: Bool
    ) {
        if let known, let path = path(of: url, under: known.urlPrefix) {
            var target = known
            target.path = path
            return (target, true)
        }
        return (try RequestTarget(url: url), false)
    }

    /// The path and query of `url` when it starts with `prefix` followed by `/`, without any fragment.
    private static func path(of url: String, under prefix: String) -> String? {
        let utf8 = url.utf8
        guard utf8.count > prefix.utf8.count, utf8.starts(with: prefix.utf8) else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
        guard utf8[start] == UInt8(ascii: "/") else { return nil }
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        return String(url[start..<end])
    }

    private static func find(_ needle: StaticString, in bytes: [UInt8], from start: Int) -> Int? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard bytes.count >= pattern.count else { return nil }
        return (start...(bytes.count - pattern.count)).first { index in
            pattern.indices.allSatisfy { bytes[index + $0] == pattern[$0] }
        }
    }
}
