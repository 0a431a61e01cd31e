public import Foundation

/// One HTTP request for ``HTTP2Client/send(_:)``. A plain value: build it on any thread.
public struct HTTP2Request: Sendable {
    /// One request header field. Names are sent lowercased, as HTTP/2 requires (RFC 9113 §8.2.1).
    public struct Header: Sendable, Equatable {
        /// The field name, an RFC 9110 token (no colon, space or control character).
        public var name: String
        /// The field value; may be empty, must not contain CR, LF or NUL.
        public var value: String

        /// Creates a header field.
        /// - Parameters:
        ///   - name: The field name, e.g. `apns-topic`.
        ///   - value: The field value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Absolute `https://` or `http://` URL (`http://` only with h2c prior knowledge, see
    /// ``HTTP2Client/Configuration/http2PriorKnowledge``).
    public var url: String
    /// The request method, an RFC 9110 token such as `POST`, `GET`, `PUT`, `DELETE`, `HEAD`.
    public var method: String
    /// Header fields in sending order. The client adds the pseudo-headers, `content-length` and
    /// `user-agent` itself (a `user-agent` here replaces the configured one); connection-specific fields
    /// (`connection`, `te`, `upgrade`, ...) and `content-length` are refused.
    /// Values are never logged nor copied into errors: `authorization` may carry a bearer token.
    public var headers: [Header]
    /// The request body in bytes; sent with its exact length (no default content type is added).
    public var body: [UInt8]
    /// Deadline for the whole exchange in seconds, from hand-off to the last response byte,
    /// including connection set-up, waiting for a free stream or a reconnect, and any resend.
    /// Must be finite and > 0.
    public var timeout: TimeInterval
    /// How many times the request is sent again, on another connection, when its connection fails before
    /// the response arrives: connection refused, TLS failure, connection closed or reset, or the stream
    /// reset by the server (0...3). Streams the server refused or never processed (REFUSED_STREAM, above a
    /// GOAWAY's last-stream-id, or never written before their connection ended; RFC 9113 §8.7) are resent
    /// anyway, up to 8 times within the deadline; these retries cover the failures where the server may have
    /// processed the request, so use them only for requests that are safe to repeat (an APNs push with the
    /// same `apns-id`).
    public var connectionRetries: Int

    /// Creates a request.
    /// - Parameters:
    ///   - url: Absolute `https://` (or `http://`) URL.
    ///   - method: HTTP method; defaults to `POST`.
    ///   - headers: Header fields, sent in order.
    ///   - body: Body bytes; empty by default.
    ///   - timeout: Whole-exchange deadline in seconds; defaults to 30.
    ///   - connectionRetries: Resends after a connection failure; defaults to 0.
    public init(
        url: String,
        method: String = "POST",
        headers: [Header] = [],
        body: [UInt8] = [],
        timeout: TimeInterval = 30,
        connectionRetries: Int = 0
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectionRetries = connectionRetries
    }

    /// Checks everything that would otherwise be sent verbatim (header injection, smuggling).
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` naming the bad part but never a header value.
    func validate() throws(HTTP2ClientError) {
        guard ASCII.hasPrefix(url, lowercasedPrefix: "https://") || ASCII.hasPrefix(url, lowercasedPrefix: "http://")
        else {
            throw .invalidRequest("URL must start with https:// or http://")
        }
        guard !ASCII.contains(url, where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidRequest("URL contains a space or control character")
        }
        guard Self.isToken(method) else {
            throw .invalidRequest("method is not an HTTP token")
        }
        for header in headers {
            guard Self.isToken(header.name) else {
                throw .invalidRequest("header name \"\(header.name.prefix(64))\" is not an HTTP token")
            }
            guard !Self.reservedNames.contains(where: { ASCII.equals(header.name, lowercased: $0) }) else {
                throw .invalidRequest("header \"\(header.name)\" is derived from the body or not allowed in HTTP/2")
            }
            guard !Self.hasLineBreakOrNUL(header.value) else {
                throw .invalidRequest("value of header \"\(header.name)\" contains CR, LF or NUL")
            }
        }
        guard timeout.isFinite, timeout > 0 else {
            throw .invalidRequest("timeout must be a finite number of seconds > 0")
        }
        guard (0...3).contains(connectionRetries) else {
            throw .invalidRequest("connectionRetries must be between 0 and 3")
        }
    }

    /// Connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2), and framing fields the client derives from
    /// the body; a caller's value would contradict what is actually sent.
    private static let reservedNames: [StaticString] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "content-length",
    ]

    /// True when `text` contains CR, LF or NUL. It runs over every header value of every request (a provider
    /// token is about 200 bytes).
    private static func hasLineBreakOrNUL(_ text: String) -> Bool {
        ASCII.contains(text) { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// RFC 9110 §5.6.2 token: one or more tchar.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && !ASCII.contains(text) { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                    UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                    UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                    return false
                default:
                    return true
                }
            }
    }
}
