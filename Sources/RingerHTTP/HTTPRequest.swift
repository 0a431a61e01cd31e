/// One HTTP request (or WebSocket upgrade request) as a server library parsed it: libwebsockets for
/// the API server, nghttp2 for the HTTP/2 APNs sandbox.
///
/// Values are copies; the type is safe to pass between threads and tasks.
public struct HTTPRequest: Sendable {
    /// The method in upper case, e.g. `"GET"`.
    public var method: String
    /// The percent-decoded path without the query, e.g. `"/v1/calls"`.
    public var path: String
    /// The query parameters, percent-decoded (`+` becomes a space). A repeated name keeps its last value.
    public var query: [String: String]
    /// Request headers by lower-cased name; repeated headers are joined with commas. Which headers a
    /// server captures is documented by that server (libwebsockets keeps only known ones plus a
    /// configured list, and none it does not know over HTTP/2).
    public var headers: [String: String]
    /// The request body (empty when there is none).
    public var body: [UInt8]
    /// 1 for HTTP/1.x, 2 for HTTP/2.
    public var httpVersion: Int
    /// The verified client certificate of the request's connection; nil when the server requests none
    /// or the client sent none.
    public var clientCertificate: ClientCertificate?
    /// The address of the connection's peer as text (dotted-quad IPv4 or IPv6, as the socket reports it);
    /// nil when the server does not tell (the HTTP/2 sandbox) or could not. Behind a proxy this is the proxy.
    public var remoteAddress: String?

    /// Creates a request; the server builds these, tests may too.
    /// - Parameters:
    ///   - method: Upper-case method.
    ///   - path: Decoded path without query.
    ///   - query: Decoded query parameters.
    ///   - headers: Headers keyed by lower-cased name.
    ///   - body: Body bytes.
    ///   - httpVersion: 1 or 2.
    ///   - clientCertificate: The connection's verified client certificate, if any.
    ///   - remoteAddress: The peer's address, if known.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], httpVersion: Int = 1, clientCertificate: ClientCertificate? = nil,
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.clientCertificate = clientCertificate
        self.remoteAddress = remoteAddress
    }

    /// The value of a header, looked up case-insensitively.
    /// - Parameter name: Header name in any case.
    /// - Returns: The value, or `nil` when absent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The bearer token of the `Authorization` header (RFC 6750 §2.1: `Bearer`, any case, then the token);
    /// the one parser of bearer credentials. Nil without the header, for another scheme or an empty token.
    public var authorizationBearerToken: String? {
        guard let authorization = headers["authorization"] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1]).trimmingBlanks()
        return token.isEmpty ? nil : token
    }

    /// The bearer token from `Authorization: Bearer <token>` (RFC 6750 §2.1) or, for a request without that
    /// header, from the `access_token` query parameter (RFC 6750 §2.3, for WebSocket clients that cannot set
    /// headers). A request with an `Authorization` header is judged by it alone: RFC 6750 §2 lets a client
    /// send its token one way only.
    /// - Returns: The token, or `nil` when neither is present.
    public var bearerToken: String? {
        guard headers["authorization"] == nil else { return authorizationBearerToken }
        return query["access_token"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }
}

extension String {
    /// Removes spaces and tabs from both ends (Foundation-free).
    fileprivate func trimmingBlanks() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
