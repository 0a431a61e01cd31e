public import Foundation
import RingerSupport
public import RingerWire

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends one HTTP request. The SDK ships ``URLSessionHTTPTransport``; tests and simulators may
/// supply their own.
public protocol HTTPTransport: Sendable {
    /// Performs a request.
    /// - Returns: the status code and body.
    /// - Throws: a transport error when no response arrived.
    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data)

    /// Performs a request and returns the response's `Date` header too, from which the SDK learns the server's
    /// clock (RFC 9110 §6.6.1). The default implementation calls ``send(method:url:headers:body:)`` and
    /// returns no date.
    /// - Returns: the status code, body and `Date` header value (nil when absent or unknown).
    /// - Throws: a transport error when no response arrived.
    func sendReadingDate(
        method: String, url: URL, headers: [String: String],
        body: Data?
    ) async throws -> (status: Int, body: Data, date: String?)
}

extension HTTPTransport {
    /// Performs the request with ``send(method:url:headers:body:)``; the transport reads no `Date` header.
    public func sendReadingDate(
        method: String, url: URL, headers: [String: String],
        body: Data?
    ) async throws -> (status: Int, body: Data, date: String?) {
        let (status, body) = try await send(method: method, url: url, headers: headers, body: body)
        return (status, body, nil)
    }
}

/// ``HTTPTransport`` over `URLSession`.
public struct URLSessionHTTPTransport: HTTPTransport {
    private let session: URLSession
    /// Per-request timeout, seconds.
    public let timeout: TimeInterval

    /// Creates the transport.
    public init(session: URLSession = .shared, timeout: TimeInterval = 15) {
        self.session = session
        self.timeout = timeout
    }

    /// Performs a request over the session.
    /// - Returns: the status code (0 when the response is not HTTP) and body.
    /// - Throws: the session's error when no response arrived.
    public func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        let (status, data, _) = try await sendReadingDate(method: method, url: url, headers: headers, body: body)
        return (status, data)
    }

    /// Performs a request over the session and reads the response's `Date` header.
    /// - Returns: the status code (0 when the response is not HTTP), body and `Date` header.
    /// - Throws: the session's error when no response arrived.
    public func sendReadingDate(
        method: String, url: URL, headers: [String: String],
        body: Data?
    ) async throws -> (status: Int, body: Data, date: String?) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Date"))
    }
}

/// The Ringer REST API for one logged-in user (docs/openapi.yaml). Thread-safe.
public struct RingerAPIClient: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// The logged-in user's id: the `sub` claim of the user token (docs/openapi.yaml `components/securitySchemes`), nil when
    /// the token is not a readable JWT. Read without verifying the signature: the server verifies;
    /// the device only uses it to refuse pushes meant for someone else.
    public let userID: String?
    private let token: String
    private let transport: any HTTPTransport
    /// Told the server's clock from each answer's `Date` header (``observingServerTime(_:)``).
    private var serverTimeObserver: (@Sendable (Date) -> Void)?

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: the server.
    ///   - userToken: the user token (kept in memory only; never logged).
    ///   - transport: how requests are sent.
    public init(baseURL: URL, userToken: String, transport: any HTTPTransport = URLSessionHTTPTransport()) {
        self.baseURL = baseURL
        token = userToken
        userID = Self.subject(ofJWT: userToken)
        self.transport = transport
    }

    /// The `sub` claim of a compact JWT (RFC 7519 section 4.1.2), or nil.
    static func subject(ofJWT token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return claims["sub"] as? String
    }

    /// `PUT /v1/devices/{id}`: registers this device's push tokens for the logged-in user.
    /// - Throws: ``RingerAPIError``.
    public func registerDevice(id: String, _ registration: DeviceRegistration) async throws -> Device {
        try await request("PUT", "/v1/devices/\(id)", body: registration)
    }

    /// `DELETE /v1/devices/{id}`: call on logout so the device stops ringing for this user.
    /// - Throws: ``RingerAPIError``.
    public func unregisterDevice(id: String) async throws {
        _ = try await send("DELETE", "/v1/devices/\(id)", body: Empty?.none)
    }

    /// `POST /v1/calls`.
    /// - Parameters:
    ///   - callee: the user to call.
    ///   - hasVideo: whether to offer video.
    ///   - callWaiting: whether a callee already in a call is rung as a waiting call (true) or the call is `busy`
    ///     (false); the server's `--call-waiting` when nil.
    ///   - idempotencyKey: sent as `Idempotency-Key`; retrying with the same key returns the same
    ///     call instead of ringing the callee again (kept by the server for 24 hours).
    /// - Throws: ``RingerAPIError``.
    public func createCall(
        callee: String, hasVideo: Bool = false, callWaiting: Bool? = nil,
        idempotencyKey: String = UUID().uuidString.lowercased()
    ) async throws -> Call {
        try await request(
            "POST", "/v1/calls", body: CreateCallRequest(callee: callee, hasVideo: hasVideo, callWaiting: callWaiting),
            headers: ["Idempotency-Key": idempotencyKey])
    }

    /// `POST /v1/calls` with `callees`: a group call, a leg per callee (docs/call-lifecycle.md "Group calls").
    /// - Parameters:
    ///   - callees: user ids, distinct, not this user.
    ///   - answerPolicy: what an answer does; the server's default (`first_answer`) when nil.
    ///   - callWaiting: whether callees already in a call are rung as waiting calls; the server's when nil.
    ///   - idempotencyKey: the same key for every retry of one call.
    /// - Throws: ``RingerAPIError`` (422 `duplicate-callee`, `too-many-callees`; 404 `user-not-found` with `callees`).
    public func createCall(
        callees: [String], answerPolicy: AnswerPolicy? = nil, hasVideo: Bool = false, callWaiting: Bool? = nil,
        idempotencyKey: String = UUID().uuidString.lowercased()
    ) async throws -> Call {
        try await request(
            "POST", "/v1/calls",
            body: CreateCallRequest(
                callees: callees, answerPolicy: answerPolicy, hasVideo: hasVideo, callWaiting: callWaiting),
            headers: ["Idempotency-Key": idempotencyKey])
    }

    /// `POST /v1/calls/{id}/ring`: rings more people into a live call.
    /// - Throws: ``RingerAPIError`` (409 `callee-already-rung`, `call-state-conflict`; 403; 422 as for a group call).
    public func ring(callID: String, callees: [String]) async throws -> Call {
        try await request("POST", "/v1/calls/\(callID)/ring", body: RingRequest(callees: callees))
    }

    /// `POST /v1/calls/{id}/ringing`.
    /// - Throws: ``RingerAPIError``.
    public func ringing(callID: String, deviceID: String) async throws -> Call {
        try await request("POST", "/v1/calls/\(callID)/ringing", body: DeviceActionRequest(deviceID: deviceID))
    }

    /// `POST /v1/calls/{id}/accept`: returns the call and this user's media session.
    /// - Throws: ``RingerAPIError``; a 409 problem when the call was cancelled or answered elsewhere.
    public func accept(callID: String, deviceID: String) async throws -> AcceptResponse {
        try await request("POST", "/v1/calls/\(callID)/accept", body: DeviceActionRequest(deviceID: deviceID))
    }

    /// `POST /v1/calls/{id}/decline`.
    /// - Throws: ``RingerAPIError``.
    public func decline(callID: String, deviceID: String) async throws -> Call {
        try await request("POST", "/v1/calls/\(callID)/decline", body: DeviceActionRequest(deviceID: deviceID))
    }

    /// `POST /v1/calls/{id}/cancel` (caller, before an answer).
    /// - Throws: ``RingerAPIError``.
    public func cancel(callID: String) async throws -> Call {
        try await request("POST", "/v1/calls/\(callID)/cancel", body: Empty?.none)
    }

    /// `POST /v1/calls/{id}/end` (either party, after an answer).
    /// - Throws: ``RingerAPIError``.
    public func end(callID: String) async throws -> Call {
        try await request("POST", "/v1/calls/\(callID)/end", body: Empty?.none)
    }

    /// `POST /v1/calls/{id}/keepalive`: this user's app is still in the accepted call, so the server does not end it
    /// `connection_lost` while the app holds no event socket (docs/call-lifecycle.md). 204 on success.
    /// - Throws: ``RingerAPIError``; a 409 `call-state-conflict` (with `call_state`) once the call is no longer
    ///   accepted.
    public func keepalive(callID: String) async throws {
        _ = try await send("POST", "/v1/calls/\(callID)/keepalive", body: Empty?.none)
    }

    /// `GET /v1/calls/{id}`.
    /// - Throws: ``RingerAPIError``.
    public func call(id: String) async throws -> Call {
        try await request("GET", "/v1/calls/\(id)", body: Empty?.none)
    }

    /// `GET /v1/calls?limit=&before=`: this user's calls, as caller or callee, newest first, a page at a time: the
    /// server's call history (recent and missed calls), each as this user reads it (a group callee's own leg). Pass
    /// a page's ``CallList/nextBefore`` as `before` for the next, older page; it is nil on the last page.
    /// - Parameters:
    ///   - limit: calls per page, 1 to 100; nil for the server's default.
    ///   - before: the id of the previous page's last call; nil for the newest page.
    /// - Throws: ``RingerAPIError``: `invalid-field` for a limit out of range or a `before` that is no call id,
    ///   `call-not-found` for a `before` that names no call of this user's (decision 0008 §4).
    public func recentCalls(limit: Int? = nil, before: String? = nil) async throws -> CallList {
        var query: [URLQueryItem] = []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let before { query.append(URLQueryItem(name: "before", value: before)) }
        return try await request("GET", "/v1/calls", body: Empty?.none, query: query)
    }

    /// `GET /v1/calls/{id}/media`: this user's media session for an accepted call (the caller's side).
    /// - Throws: ``RingerAPIError``.
    public func media(callID: String) async throws -> MediaSession {
        try await request("GET", "/v1/calls/\(callID)/media", body: Empty?.none)
    }

    /// The WebSocket URL of the event stream for this device (`ws://…/v1/events?device_id=…&since=…`).
    public func eventsURL(deviceID: String, since: Int64?) -> URL {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("v1/events"), resolvingAgainstBaseURL: false)!
        components.scheme = baseURL.scheme == "https" ? "wss" : "ws"
        components.queryItems =
            [URLQueryItem(name: "device_id", value: deviceID)]
            + (since.map { [URLQueryItem(name: "since", value: String($0))] } ?? [])
        return components.url!
    }

    /// This client, telling `observer` the server's clock read from every answer's `Date` header (RFC 9110
    /// §6.6.1; whole seconds, so the reading is the middle of its second). ``CallCoordinator`` uses it to learn
    /// the server-minus-phone clock offset from its own requests.
    /// - Parameter observer: called on any thread with the server's time.
    /// - Returns: a copy of this client that reports the server's time.
    public func observingServerTime(_ observer: @escaping @Sendable (Date) -> Void) -> RingerAPIClient {
        var copy = self
        copy.serverTimeObserver = observer
        return copy
    }

    /// Parses an HTTP-date in the preferred IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
    /// §5.6.7); nil for anything else.
    static func httpDate(_ text: String) -> Date? {
        httpDateFormatter.withLock { $0.date(from: text) }
    }

    /// Made once: every answer carries a `Date`, and a `DateFormatter` is costly to set up. Behind a lock, as
    /// swift-corelibs-foundation does not promise a shared formatter is safe across threads.
    private static let httpDateFormatter: LockedValue<DateFormatter> = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return LockedValue(formatter)
    }()

    /// The headers that authenticate a request or the event stream.
    public var authorizationHeaders: [String: String] { ["Authorization": "Bearer " + token] }

    private struct Empty: Codable {}

    private func request<Body: Encodable, Response: Decodable>(
        _ method: String, _ path: String, body: Body?,
        headers: [String: String] = [:], query: [URLQueryItem] = []
    ) async throws -> Response {
        let data = try await send(method, path, body: body, headers: headers, query: query)
        do {
            return try RingerJSON.decode(Response.self, from: data)
        } catch {
            throw RingerAPIError.unexpectedResponse(String(describing: error))
        }
    }

    private func send<Body: Encodable>(
        _ method: String, _ path: String, body: Body?,
        headers extra: [String: String] = [:], query: [URLQueryItem] = []
    ) async throws -> Data {
        var url = baseURL.appendingPathComponent(String(path.dropFirst()))
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = query
            url = components.url ?? url
        }
        var headers = authorizationHeaders.merging(extra) { $1 }
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try RingerJSON.encode(body)
        }
        let status: Int
        let responseBody: Data
        let date: String?
        do {
            (status, responseBody, date) = try await transport.sendReadingDate(
                method: method, url: url, headers: headers,
                body: data)
        } catch {
            throw RingerAPIError.transport(String(describing: error))
        }
        if let serverTimeObserver, let date, let serverTime = Self.httpDate(date) {
            serverTimeObserver(serverTime.addingTimeInterval(0.5))
        }
        guard (200..<300).contains(status) else {
            if let problem = try? RingerJSON.decode(Problem.self, from: responseBody) {
                throw RingerAPIError.problem(problem)
            }
            throw RingerAPIError.problem(Problem(type: "about:blank", title: "HTTP \(status)", status: status))
        }
        return responseBody
    }
}

/// A failed API call: the server's problem, or no usable answer.
public struct RingerAPIError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case problem, transport, unexpectedResponse }

    private let code: Code
    /// The server's problem, when it answered with one.
    public let problem: Problem?
    private let detail: String

    private init(_ code: Code, problem: Problem?, detail: String) {
        self.code = code
        self.problem = problem
        self.detail = detail
    }

    /// The server refused the request.
    public static func problem(_ problem: Problem) -> RingerAPIError {
        RingerAPIError(
            .problem, problem: problem, detail: "\(problem.status) \(problem.type): \(problem.detail ?? problem.title)")
    }

    /// No answer (network down, timeout). The request may or may not have been applied: retry idempotent ones.
    public static func transport(_ detail: String) -> RingerAPIError {
        RingerAPIError(.transport, problem: nil, detail: detail)
    }

    /// The answer could not be read.
    public static func unexpectedResponse(_ detail: String) -> RingerAPIError {
        RingerAPIError(.unexpectedResponse, problem: nil, detail: detail)
    }

    /// True when retrying later may succeed: no answer, a 5xx, `408 Request Timeout` or `429 Too Many Requests`
    /// (RFC 9110 §15.5.9, RFC 6585 §4: the request was not processed).
    public var isRetryable: Bool {
        let status = problem?.status ?? 0
        return code == .transport || status >= 500 || status == 408 || status == 429
    }

    /// True when the server gave no answer (``transport(_:)``); false when it refused (``problem``) or answered
    /// with something that could not be read (``unexpectedResponse(_:)``), which retrying will not change.
    public var isTransport: Bool { code == .transport }

    public var description: String { detail }
}
