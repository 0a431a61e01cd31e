public import Foundation

/// A complete response to an ``HTTP2Request``. Any status counts as a response; only transport
/// failures throw.
public struct HTTP2Response: Sendable {
    /// The final status code (1xx interim responses are skipped).
    public var status: Int
    /// The final response's header fields keyed by lowercased name. Repeated fields are joined with
    /// ", " (RFC 9110 §5.3). HTTP/2 trailers, if any, are included.
    public var headers: [String: String]
    /// The response body bytes.
    public var body: [UInt8]
    /// Major HTTP version used: 2 for HTTP/2, 1 for HTTP/1.x, 3 for HTTP/3, 0 if unknown.
    public var httpVersion: Int
    /// 1 when the request was the first stream of a connection opened for it, 0 when it reused an open one.
    public var newConnections: Int
    /// Seconds from the last attempt's hand-over to nghttp2 to its complete response.
    public var elapsed: TimeInterval
    /// The local TCP port of the connection that carried the answer: two responses with the same port came
    /// over the same connection. 0 if unknown.
    public var localPort: Int
    /// How many times the request went out: 1, plus one per resend (after a connection failure, or a
    /// refused stream that had been written).
    public var attempts: Int

    /// Creates a response; the client builds these, tests and fakes may too.
    /// - Parameters:
    ///   - status: Status code.
    ///   - headers: Header fields keyed by lowercased name.
    ///   - body: Body bytes.
    ///   - httpVersion: Major HTTP version.
    ///   - newConnections: Connections opened for this exchange.
    ///   - elapsed: Duration in seconds.
    ///   - localPort: Local port of the connection used, 0 if unknown.
    ///   - attempts: Times the request was sent.
    public init(
        status: Int,
        headers: [String: String] = [:],
        body: [UInt8] = [],
        httpVersion: Int = 2,
        newConnections: Int = 0,
        elapsed: TimeInterval = 0,
        localPort: Int = 0,
        attempts: Int = 1
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.newConnections = newConnections
        self.elapsed = elapsed
        self.localPort = localPort
        self.attempts = attempts
    }

    /// True when the request travelled on a connection that was already open.
    public var connectionReused: Bool {
        newConnections == 0
    }

    /// Looks a header up case-insensitively.
    /// - Parameter name: Field name in any case.
    /// - Returns: The value, or nil when absent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
