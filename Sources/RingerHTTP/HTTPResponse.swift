/// A complete HTTP response for a server to write.
///
/// The server adds `content-length` itself (do not put it in `headers`), and `date` unless `headers` has one.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200 or 410.
    public var status: Int
    /// Extra response headers in order, e.g. `[("apns-id", id)]`. Names are sent in lower case
    /// (required by HTTP/2, RFC 9113 §8.2.1, and harmless for HTTP/1.1).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    /// - Parameters:
    ///   - status: Status code (100…999).
    ///   - headers: Extra headers in order.
    ///   - body: Body bytes.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is already-encoded JSON text, with `content-type: application/json`.
    /// - Parameters:
    ///   - status: Status code.
    ///   - json: The JSON document as text.
    ///   - headers: Extra headers.
    /// - Returns: The response.
    public static func json(
        status: Int = 200, _ json: String, headers: [(name: String, value: String)] = []
    )
        -> HTTPResponse
    {
        HTTPResponse(
            status: status, headers: [("content-type", "application/json")] + headers,
            body: Array(json.utf8))
    }

    /// A response whose body is JSON bytes, with `content-type: application/json`.
    /// - Parameters:
    ///   - status: Status code.
    ///   - body: The encoded JSON document.
    ///   - headers: Extra headers.
    /// - Returns: The response.
    public static func json(
        status: Int = 200, body: [UInt8], headers: [(name: String, value: String)] = []
    )
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("content-type", "application/json")] + headers, body: body)
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    /// - Parameters:
    ///   - status: Status code.
    ///   - text: The body text.
    /// - Returns: The response.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// A response with no body.
    /// - Parameter status: Status code, e.g. 204.
    /// - Returns: The response.
    public static func empty(status: Int) -> HTTPResponse {
        HTTPResponse(status: status)
    }

    /// The handler's way to cut the request's connection instead of answering, as a crashed server or a
    /// broken network would (the sandboxes' fault injection). Status 0, which no real response has: the
    /// HTTP/2 server closes the TCP connection without GOAWAY; libwebsockets closes the HTTP/1.1 connection
    /// (or, over its HTTP/2, the stream) without a response.
    public static let closeConnection = HTTPResponse(status: 0)

    /// True for ``closeConnection``: the server must cut the connection rather than write anything.
    public var closesConnection: Bool { status == 0 }
}
