import Foundation
import HTTPTypes
import LibWebSockets
import RingerCore
import RingerLogging
import RingerStore
import RingerWire

/// Maps HTTP requests to the services and answers JSON or `application/problem+json`.
///
/// Errors are converted to responses here and only here. A request either completes or changes
/// nothing stored (each service call is one transaction).
struct APIRouter: Sendable {
    let service: CallService
    let devices: DeviceRegistry
    let store: any RingerStore
    let tokens: UserTokens
    let adminKey: String
    let maxUserTokenTTL: Int
    let clock: any ServerClock
    let log: Logger
    /// APNs configuration errors, shown by `GET /healthz`.
    let pushHealth: PushSetupHealth
    /// ``ServerConfiguration/MediaSettings/usesDevelopmentKey``.
    var mediaUsesDevelopmentKey = false
    /// The rate limits (docs/security.md): checked here and in ``CallService/createCall``.
    let limits: RateLimits
    /// Lets shutdown finish the requests in progress.
    let inFlight = InFlightWork()

    /// `GET /healthz` when pushes are failing for the server's own set-up.
    private struct HealthReport: Encodable {
        var status: String
        var pushProblems: [PushSetupHealth.Problem]?
        /// Set-up that works but should not reach production (`media-development-key`).
        var warnings: [String]?
    }

    /// The `/healthz` warning while media tokens are signed with LiveKit's published development key.
    static let mediaDevelopmentKeyWarning = "media-development-key"

    /// Largest request body accepted, bytes.
    static let maxBodyBytes = 64 * 1024

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard inFlight.enter() else {
            return Self.problem(Problem(type: ProblemType.unavailable.rawValue, title: "Unavailable", status: 503,
                                        detail: "the server is shutting down; retry"))
        }
        defer { inFlight.leave() }
        do {
            return try await route(request)
        } catch let refusal as MethodNotAllowed {
            return Self.methodNotAllowed(refusal.method, allowed: refusal.allowed)
        } catch let problem as Problem {
            return Self.problem(problem)
        } catch let limited as RateLimitExceeded {
            log.debug("rate limited", ["http.path": .string(request.path), "detail": .string(limited.problem.detail ?? "")])
            return limited.response
        } catch let error as StoreError {
            log.error("store failure", ["error": .string(error.description), "http.path": .string(request.path)])
            if error.isBusy {
                return Self.problem(Problem(type: ProblemType.unavailable.rawValue, title: "Unavailable", status: 503,
                                            detail: "the database is busy; retry"))
            }
            // Nothing was changed, and nothing will be until an operator acts: a 503 the client may retry later.
            if error.isUnavailable { return Self.problem(APIProblem.storeUnavailable()) }
            return Self.problem(APIProblem.internalError())
        } catch {
            log.error("request failed", ["error": .string("\(error)"), "http.path": .string(request.path)])
            return Self.problem(APIProblem.internalError())
        }
    }

    /// A method the route does not take, with those it does (for `Allow`).
    /// RFC 9110 §15.5.6: a 405 lists the methods the resource does support.
    private static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPResponse {
        var response = problem(APIProblem.methodNotAllowed(method))
        response.headers.append(("allow", allowed.joined(separator: ", ")))
        return response
    }

    /// The registered methods (RFC 9110 §9, RFC 5789 PATCH, the IETF's QUERY) that libwebsockets leaves to the raw
    /// fallback (TRACE, CONNECT, QUERY): known, so a routed path answers them 405 with `Allow`; any other unknown
    /// method is 501.
    static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
                                               "PATCH", "QUERY"]

    /// The answer to a method libwebsockets does not parse, from the request line: 405 with `Allow` on a
    /// routed path for a standard method, 404 on any other path, 501 for a method Ringer does not know.
    static func unknownMethodResponse(method: String, path: String) -> HTTPResponse {
        guard standardMethods.contains(method) else { return problem(APIProblem.methodNotImplemented()) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let allowed = allowedMethods(parts) else { return problem(APIProblem.notFound("no route \(path)")) }
        return methodNotAllowed(method, allowed: allowed)
    }

    private struct MethodNotAllowed: Error {
        let method: String
        let allowed: [String]
    }

    /// The methods each route takes, by the path's segments (nil: no such route). HEAD is answered wherever GET is,
    /// as GET without the body (RFC 9110 §9.3.2; the server omits it).
    static func allowedMethods(_ parts: [String]) -> [String]? {
        let methods: [String]?
        switch parts.count {
        case 1 where parts[0] == "healthz": methods = ["GET"]
        case 2 where parts == ["v1", "tokens"]: methods = ["POST"]
        case 2 where parts == ["v1", "events"]: methods = ["GET"]
        case 2 where parts == ["v1", "devices"]: methods = ["GET"]
        case 3 where parts[0] == "v1" && parts[1] == "devices": methods = ["PUT", "DELETE"]
        case 2 where parts == ["v1", "calls"]: methods = ["GET", "POST"]
        case 3 where parts[0] == "v1" && parts[1] == "calls": methods = ["GET"]
        case 4 where parts[0] == "v1" && parts[1] == "calls":
            switch parts[3] {
            case "media", "pushes": methods = ["GET"]
            case "accept", "ringing", "decline", "cancel", "end", "keepalive": methods = ["POST"]
            default: methods = nil
            }
        default: methods = nil
        }
        return methods.map { $0.contains("GET") ? $0 + ["HEAD"] : $0 }
    }

    private func route(_ request: HTTPRequest) async throws -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // HEAD runs the GET handler; the server sends its status and headers only.
        let method = request.method == "HEAD" ? "GET" : request.method
        // The method is checked before credentials, so that a 405 (with Allow) never depends on the token.
        if let allowed = Self.allowedMethods(parts), !allowed.contains(request.method) {
            throw MethodNotAllowed(method: request.method, allowed: allowed)
        }
        switch parts.count {
        case 1 where parts[0] == "healthz":
            // A write, not a read: a full disk, a read-only or deleted database still answers reads.
            do {
                try await store.checkWritable(at: clock.now())
            } catch {
                log.error("health check: the database cannot be written", ["error": .string("\(error)")])
                return Self.problem(APIProblem.storeUnavailable())
            }
            // Pushes refused for the server's own APNs set-up: the API works, but calls will not ring.
            let problems = pushHealth.current
            return try Self.json(HealthReport(status: problems.isEmpty ? "ok" : "degraded",
                                              pushProblems: problems.isEmpty ? nil : problems,
                                              warnings: mediaUsesDevelopmentKey ? [Self.mediaDevelopmentKeyWarning] : nil))
        case 2 where parts == ["v1", "events"]:
            // The event stream is a WebSocket: an upgrade never reaches the router (RingerServer accepts it).
            var refusal = Self.problem(APIProblem.upgradeRequired())
            refusal.headers.append(("upgrade", "websocket"))
            return refusal
        case 2 where parts == ["v1", "tokens"]:
            try requireAdmin(request)
            let body = try decode(CreateTokenRequest.self, request)
            guard UserID.isValid(body.userId) else { throw APIProblem.invalidField("user_id is not a valid user id") }
            if let name = body.name, let problem = UserID.nameProblem(name) { throw APIProblem.invalidField(problem) }
            let ttl = body.ttlSeconds ?? 3600
            guard (60...maxUserTokenTTL).contains(ttl) else {
                throw APIProblem.invalidField("ttl_seconds must be between 60 and \(maxUserTokenTTL)")
            }
            let now = clock.now()
            try await store.upsertUser(id: body.userId, name: body.name, at: now)
            return try Self.json(tokens.mint(userID: body.userId, name: body.name, ttl: ttl, now: now), status: 201)
        case 2 where parts == ["v1", "devices"]:
            let user = try authenticate(request)
            return try Self.json(["devices": await store.devices(ofUser: user.id)])
        case 3 where parts[0] == "v1" && parts[1] == "devices":
            let user = try authenticate(request)
            let deviceID = parts[2]
            // Only PUT and DELETE get here (``allowedMethods(_:)``), and both are device changes.
            try limits.admitDeviceChange(user: user.id)
            if method == "DELETE" {
                // An id no registration can have is the client's mistake, not "already gone".
                guard UserID.isValid(deviceID) else { throw APIProblem.invalidField("device_id is not a valid device id") }
                // Idempotent, so a retried logout succeeds; another user's device is never touched.
                _ = try await store.deleteDevice(id: deviceID, userID: user.id)
                return HTTPResponse(status: 204)
            }
            let body = try decode(DeviceRegistration.self, request)
            return try Self.json(await devices.register(deviceID: deviceID, user: user, body: body, now: clock.now()))
        case 2 where parts == ["v1", "calls"]:
            let user = try authenticate(request)
            // Only GET and POST get here (``allowedMethods(_:)``).
            if method == "POST" {
                let body = try decode(CreateCallRequest.self, request)
                let key = request.headers["idempotency-key"]
                if let key, !(1...255).contains(key.utf8.count) {
                    throw APIProblem.invalidField("Idempotency-Key must be 1 to 255 characters")
                }
                try await store.upsertUser(id: user.id, name: user.name, at: clock.now())
                return try Self.json(await service.createCall(caller: user, request: body, idempotencyKey: key,
                                                                   address: limits.addressKey(of: request)), status: 201)
            }
            let limit = try request.query["limit"].map { text -> Int in
                guard let value = Int(text), (1...100).contains(value) else {
                    throw APIProblem.invalidField("limit must be a number from 1 to 100")
                }
                return value
            } ?? 20
            return try Self.json(CallList(calls: await service.calls(of: user.id, limit: limit)))
        case 3 where parts[0] == "v1" && parts[1] == "calls":
            let user = try authenticate(request)
            let id = try callID(parts[2])
            var call = try await service.call(id: id, user: user.id)
            // The push outcomes describe the callee's devices: only the callee sees them.
            if call.callee.id == user.id { call.pushes = try await service.pushAttempts(callID: id, user: user.id) }
            return try Self.json(call)
        case 4 where parts[0] == "v1" && parts[1] == "calls":
            let user = try authenticate(request)
            let id = try callID(parts[2])
            // Authenticate, then find the call the caller may see, then read the body: a stranger gets the same
            // 404 whatever the body holds.
            _ = try await service.call(id: id, user: user.id)
            switch parts[3] {
            case "media":
                return try Self.json(await service.mediaSession(callID: id, user: user))
            case "pushes":
                return try Self.json(["pushes": await service.pushAttempts(callID: id, user: user.id)])
            case "accept":
                let body = try decode(DeviceActionRequest.self, request)
                return try Self.json(await service.accept(callID: id, user: user, deviceID: body.deviceId))
            case "ringing", "decline":
                let device = try decode(DeviceActionRequest.self, request).deviceId
                let input: CallInput = parts[3] == "ringing" ? .ringing(deviceID: device) : .decline(deviceID: device)
                return try Self.json(await service.act(input, callID: id, user: user.id))
            case "cancel", "end":
                return try Self.json(await service.act(parts[3] == "cancel" ? .cancel : .end, callID: id, user: user.id))
            case "keepalive":
                try await service.keepalive(callID: id, user: user.id)
                return HTTPResponse(status: 204)
            default:
                throw APIProblem.notFound("no route \(request.path)")
            }
        default:
            throw APIProblem.notFound("no route \(request.path)")
        }
    }

    // MARK: Helpers

    /// The user behind `Authorization: Bearer <user token>`. Credentials that fail count against the client
    /// address (`--rate-limit-auth-failures-per-minute`); an address past that limit is refused unchecked.
    /// - Throws: 401 ``Problem``; ``RateLimitExceeded``.
    func authenticate(_ request: HTTPRequest) throws -> Party {
        guard let token = Self.bearer(request.headers["authorization"]) else {
            throw APIProblem.unauthorized("send Authorization: Bearer <user token>")
        }
        let claims = try checkingCredentials(of: request) { try tokens.verify(token, now: clock.now()) }
        // A name from a token minted elsewhere is made fit to travel in every ringing push.
        return Party(id: claims.sub, name: UserID.displayName(fromToken: claims.name))
    }

    private func requireAdmin(_ request: HTTPRequest) throws {
        guard let key = Self.bearer(request.headers["authorization"]) else {
            throw APIProblem.unauthorized("send Authorization: Bearer <admin key>")
        }
        try checkingCredentials(of: request) {
            guard Self.constantTimeEquals(key, adminKey) else { throw APIProblem.unauthorized("the admin key is not valid") }
        }
    }

    /// Runs a credential check for `request` under the failed-authentication limit of its client address.
    private func checkingCredentials<T>(of request: HTTPRequest, _ check: () throws -> T) throws -> T {
        let address = limits.addressKey(of: request)
        try limits.admitCredentials(from: address)
        do {
            return try check()
        } catch {
            limits.credentialsFailed(from: address)
            throw error
        }
    }

    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Compares secrets without an early exit, so timing does not reveal how much matched.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    private func callID(_ text: String) throws -> String {
        guard let uuid = UUID(uuidString: text), uuid.uuidString.lowercased() == text.lowercased() else {
            throw APIProblem.callNotFound()
        }
        return text.lowercased()
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        guard !request.body.isEmpty else { throw APIProblem.malformed("the request needs a JSON body") }
        let value: T
        do {
            value = try RingerJSON.decoder().decode(type, from: Data(request.body))
        } catch let error as DecodingError {
            throw APIProblem.malformed(Self.describe(error))
        } catch {
            throw APIProblem.malformed("the body is not JSON")
        }
        // `null` is not a value of any field (docs/openapi.yaml): an optional field is left out instead. Codable
        // alone takes `null` for an absent optional, accepting what the schema refuses. Unknown keys are ignored.
        // A body without the bytes `null` has none, so only such a body is parsed a second time.
        guard request.body.firstRange(of: Array("null".utf8)) != nil else { return value }
        let fields = Set(Mirror(reflecting: value).children.compactMap { $0.label.map(Self.snakeCase) })
        if let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
           let field = object.first(where: { fields.contains($0.key) && $0.value is NSNull })?.key {
            throw APIProblem.malformed("\(field) is null: leave an optional field out instead")
        }
        return value
    }

    /// A short, safe description of a decoding error: the field path and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? Self.snakeCase($0.stringValue) }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context): return "\(path(context)) has the wrong type"
        case .valueNotFound(_, let context): return "\(path(context)) must not be null"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(Self.snakeCase(key.stringValue)) is required" + (parent == "the body" ? "" : " in \(parent)")
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "\(path(context)) is not valid"
        @unknown default: return "the body could not be read"
        }
    }

    private static func snakeCase(_ key: String) -> String {
        key.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: [("content-type", "application/json")],
                     body: Array(try RingerJSON.encode(value)))
    }

    static func problem(_ problem: Problem) -> HTTPResponse {
        let body = (try? RingerJSON.encode(problem)).map(Array.init) ?? []
        return HTTPResponse(status: problem.status,
                            headers: [("content-type", "application/problem+json")], body: body)
    }
}
