import LibWebSockets
import RingerHTTP
import RingerWire

/// One operation of the API: a method on a path template, the credentials it needs and its handler.
/// ``APIRouter/routes`` lists every one; dispatch, 405 with `Allow`, HEAD and the methods libwebsockets
/// leaves to the router all come from that one table, and a test holds it equal to docs/openapi.yaml.
struct Route: Sendable {
    /// What a handler is given: the request and the path's parameters by name (`call_id`, `device_id`).
    struct Input: Sendable {
        let request: HTTPRequest
        let parameters: [String: String]

        /// The value of a parameter of the route's template; empty for a name the template does not have.
        subscript(parameter name: String) -> String { parameters[name] ?? "" }
    }

    /// A handler, by the credentials it needs (docs/openapi.yaml `security`); the router checks them
    /// before the handler runs, and only after the method (a 405 never depends on the token).
    enum Handler: Sendable {
        /// No credentials (`security: []`).
        case open(@Sendable (APIRouter, Input) async throws -> HTTPResponse)
        /// `Authorization: Bearer <admin key>` (`adminKey`).
        case admin(@Sendable (APIRouter, Input) async throws -> HTTPResponse)
        /// `Authorization: Bearer <metrics token>` (`--metrics-token`) or the admin key (`metricsToken`).
        case metrics(@Sendable (APIRouter, Input) async throws -> HTTPResponse)
        /// `Authorization: Bearer <API key>` holding the scope (`apiKey`), or the admin key, which holds every scope
        /// (decision 0009 §1); the handler gets which of the two it was.
        case backend(APIKeyScope, @Sendable (APIRouter, Input, BackendCredential) async throws -> HTTPResponse)
        /// `Authorization: Bearer <user token>` (`userToken`); the handler gets the user it names.
        case user(@Sendable (APIRouter, Input, Party) async throws -> HTTPResponse)
        /// A WebSocket (RFC 6455 §4.1) with a user token in `Authorization: Bearer` or, for browsers, which cannot
        /// set headers on one, `?access_token=` (`userToken`, `userTokenQuery`). The handler decides the upgrade on
        /// the libwebsockets thread, before the handshake, without I/O (``APIRouter/upgrade(_:_:)``); it throws a
        /// ``Problem`` or ``RateLimitExceeded`` to refuse. The request without the upgrade headers is answered 426
        /// with `Upgrade: websocket` (RFC 9110 §15.5.22). Only `GET` on a template without parameters.
        case userWebSocket(@Sendable (APIRouter, Input, Party, WebSocketConnection) throws -> WebSocketUpgrade)
    }

    /// `GET`, `POST`, `PUT` or `DELETE` (HEAD is answered wherever GET is, RFC 9110 §9.3.2).
    let method: String
    let path: PathTemplate
    let handler: Handler

    /// - Parameters:
    ///   - method: the method, upper case.
    ///   - template: the path as docs/openapi.yaml writes it, e.g. `/v1/calls/{call_id}/accept`.
    ///   - handler: what answers it, with the credentials it needs.
    init(_ method: String, _ template: String, _ handler: Handler) {
        self.method = method
        path = PathTemplate(template)
        self.handler = handler
    }
}

/// A path template as OpenAPI writes it (`/v1/calls/{call_id}`): literal segments and `{name}` parameters,
/// each parameter standing for exactly one non-empty segment.
struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    /// The template as written.
    let description: String

    /// - Parameter template: `/`-separated segments, `{name}` for a parameter.
    init(_ template: String) {
        description = template
        segments = template.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The segments of a request path: empty segments are dropped, so `//v1/calls/` is `/v1/calls`.
    static func parts(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The parameters when `parts` (from ``parts(of:)``) match the template, nil otherwise.
    func match(_ parts: [String]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard text == part else { return nil }
            case .parameter(let name): parameters[name] = part
            }
        }
        return parameters
    }

    /// Whether some path matches both templates (a table with two such templates would be ambiguous).
    func overlaps(_ other: PathTemplate) -> Bool {
        guard segments.count == other.segments.count else { return false }
        return zip(segments, other.segments).allSatisfy { pair in
            if case .literal(let a) = pair.0, case .literal(let b) = pair.1 { return a == b }
            return true
        }
    }
}

/// The routes of one path template, found for a request path.
struct RouteMatch: Sendable {
    /// The routes sharing the matched template, in table order.
    let routes: [Route]
    let parameters: [String: String]

    /// The methods the path takes, for `Allow` (RFC 9110 §10.2.1): table order, then HEAD where GET is.
    var allowedMethods: [String] {
        let methods = routes.map(\.method)
        return methods.contains("GET") ? methods + ["HEAD"] : methods
    }

    /// The route answering `method`; HEAD runs GET's (the server then sends no body).
    func route(for method: String) -> Route? {
        let wanted = method == "HEAD" ? "GET" : method
        return routes.first { $0.method == wanted }
    }

    /// The routes of the first template in `table` that matches `path`; nil when none does (404).
    static func find(_ path: String, in table: [Route]) -> RouteMatch? {
        let parts = PathTemplate.parts(of: path)
        for route in table {
            guard let parameters = route.path.match(parts) else { continue }
            return RouteMatch(routes: table.filter { $0.path == route.path }, parameters: parameters)
        }
        return nil
    }
}
