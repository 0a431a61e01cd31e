import RingerCore
import RingerHTTP
public import RingerWire

/// Builders for the problems the API answers with; each maps to one stable ``ProblemType``. Every
/// problem response of the server, from the router, the WebSocket upgrade and the web server's own
/// refusals, is made by ``response(_:headers:)``.
public enum APIProblem {
    /// The response carrying `problem` as `application/problem+json` (RFC 9457 §3), its status the
    /// problem's.
    /// - Parameters:
    ///   - problem: the problem.
    ///   - headers: headers the refusal names besides the content type (`allow`, `retry-after`, `upgrade`).
    static func response(_ problem: Problem, headers: [(String, String)] = []) -> HTTPResponse {
        let body = (try? RingerJSON.encode(problem)).map(Array.init) ?? []
        return HTTPResponse(
            status: problem.status,
            headers: [("content-type", "application/problem+json")] + headers, body: body)
    }

    /// The one spelling of a problem: every builder below names its ``ProblemType`` with the title and status that
    /// type always has (RFC 9457 §3.1.3: a title does not change between occurrences of a type).
    private static func problem(
        _ type: ProblemType, _ title: String, _ status: Int, _ detail: String, callState: CallState? = nil
    ) -> Problem {
        Problem(type: type.rawValue, title: title, status: status, detail: detail, callState: callState)
    }

    /// 503 with `detail`: the four reasons the server is unavailable share the type's title and status.
    private static func unavailable(_ detail: String) -> Problem {
        problem(.unavailable, "Unavailable", 503, detail)
    }

    /// 400: the body is not JSON of the expected shape.
    public static func malformed(_ detail: String) -> Problem {
        problem(.malformedRequest, "Malformed request", 400, detail)
    }

    /// 422: a field has an unacceptable value.
    public static func invalidField(_ detail: String) -> Problem {
        problem(.invalidField, "Invalid field", 422, detail)
    }

    /// 422: a `device_id` that is not an ``Identifier``.
    static func invalidDeviceID() -> Problem {
        invalidField("device_id is not a valid device id")
    }

    /// 401: missing or bad credentials.
    public static func unauthorized(_ detail: String) -> Problem {
        problem(.unauthorized, "Unauthorized", 401, detail)
    }

    /// 403: not allowed.
    public static func forbidden(_ detail: String) -> Problem {
        problem(.forbidden, "Forbidden", 403, detail)
    }

    /// 403: an API key lacking `scope` (sent by ``InsufficientScope`` with its challenge header).
    static func insufficientScope(_ scope: APIKeyScope) -> Problem {
        problem(.insufficientScope, "Insufficient scope", 403, "this API key lacks the scope \(scope.rawValue)")
    }

    /// 404: no API key with this id.
    static func apiKeyNotFound(_ id: String) -> Problem {
        problem(.apiKeyNotFound, "API key not found", 404, "no API key \(id.prefix(64))")
    }

    /// 404: no webhook endpoint with this id.
    static func webhookEndpointNotFound(_ id: String) -> Problem {
        problem(.webhookEndpointNotFound, "Webhook endpoint not found", 404, "no webhook endpoint \(id.prefix(64))")
    }

    /// 404: the endpoint has no such delivery.
    static func webhookDeliveryNotFound(_ id: String) -> Problem {
        problem(
            .webhookDeliveryNotFound, "Webhook delivery not found", 404, "the endpoint has no delivery \(id.prefix(64))"
        )
    }

    /// 404: no push provider with this id.
    static func pushProviderNotFound(_ id: String) -> Problem {
        problem(.pushProviderNotFound, "Push provider not found", 404, "no push provider \(id.prefix(64))")
    }

    /// 409: a redelivery to a disabled endpoint.
    static func webhookEndpointDisabled(_ id: String) -> Problem {
        problem(
            .webhookEndpointDisabled, "Webhook endpoint disabled", 409,
            "webhook endpoint \(id.prefix(64)) is disabled: PUT it with enabled true first")
    }

    /// 409: no `--secrets-key`, so no secret can be kept.
    static func secretsKeyRequired() -> Problem {
        problem(
            .secretsKeyRequired, "Secrets key required", 409,
            "the server keeps secrets sealed: start it with --secrets-key (RINGER_SECRETS_KEY), 32 bytes in base64"
        )
    }

    /// 404: no such route.
    public static func notFound(_ detail: String) -> Problem {
        problem(.notFound, "Not found", 404, detail)
    }

    /// 405: the route does not take this method.
    public static func methodNotAllowed(_ method: String) -> Problem {
        problem(.methodNotAllowed, "Method not allowed", 405, "\(method) is not supported here")
    }

    /// 404: unknown callee.
    public static func userNotFound(_ id: String) -> Problem {
        problem(.userNotFound, "User not found", 404, "no user \(id)")
    }

    /// 404: no such call, or not a participant (the two are not told apart, so ids cannot be probed).
    public static func callNotFound() -> Problem {
        problem(.callNotFound, "Call not found", 404, "no such call for this user")
    }

    /// 422: the device is not registered to (or connected as) the acting user.
    public static func unknownDevice(_ id: String) -> Problem {
        problem(.unknownDevice, "Unknown device", 422, "device \(id) is not registered to this user")
    }

    /// 422: calling oneself.
    public static func selfCall() -> Problem {
        problem(.selfCall, "Cannot call yourself", 422, "the callee is the caller")
    }

    /// 413: body too large.
    public static func payloadTooLarge(limit: Int) -> Problem {
        problem(.payloadTooLarge, "Payload too large", 413, "the body exceeds \(limit) bytes")
    }

    /// 408: the body did not arrive within `seconds` of the request's head (`--request-deadline`).
    public static func requestTimeout(seconds: Int) -> Problem {
        problem(
            .requestTimeout, "Request timeout", 408,
            "the request body did not arrive within \(seconds) s; nothing was done")
    }

    /// 431: the request head exceeds `limit` bytes (RFC 6585 §5).
    public static func headersTooLarge(limit: Int) -> Problem {
        problem(
            .headersTooLarge, "Request header fields too large", 431,
            "the request line and headers exceed \(limit) bytes")
    }

    /// 400: the request target holds an encoded NUL, CR or LF (`%00`, `%0D`, `%0A`), which no route takes.
    public static func badRequestTarget() -> Problem {
        malformed("the request target must not contain %00, %0D or %0A")
    }

    /// 400: a `Content-Length` that is not a number of bytes (RFC 9110 §8.6: 1*DIGIT).
    public static func badContentLength() -> Problem {
        malformed("Content-Length must be a number of bytes (digits only)")
    }

    /// 400: a header field value holds a control character (RFC 9110 §5.5: NUL, CR and LF must be refused).
    public static func badHeaderValue() -> Problem {
        malformed("a header field value holds a control character (NUL, CR, LF or another byte below 0x20 but tab)")
    }

    /// The answer to an HTTP/1.1 request with `Transfer-Encoding`: 400 `malformed-request` beside `Content-Length`
    /// (RFC 9112 §6.1, the ambiguity request smuggling uses), else 411 `length-required` (RFC 9110 §15.5.12).
    public static func transferEncoding(withContentLength: Bool) -> Problem {
        withContentLength
            ? malformed("Transfer-Encoding and Content-Length together; send the body with Content-Length only")
            : problem(
                .lengthRequired, "Length required", 411,
                "request bodies are read by Content-Length; Transfer-Encoding is not accepted")
    }

    /// 501: a method the server does not implement (RFC 9110 §9.1).
    public static func methodNotImplemented() -> Problem {
        problem(
            .methodNotImplemented, "Method not implemented", 501,
            "the server implements GET, HEAD, POST, PUT and DELETE; see the route's Allow header")
    }

    /// 429: the user already holds as many event sockets as the server allows (`--max-sockets-per-user`).
    public static func tooManySockets(limit: Int) -> Problem {
        problem(
            .tooManySockets, "Too many sockets", 429,
            "this user already holds \(limit) event sockets; close one, or reconnect with the same device_id to replace its socket"
        )
    }

    /// 503: the database cannot take writes (full disk, read-only or lost file, PostgreSQL unreachable or not
    /// answering in time); nothing was changed. Why goes to the log only: paths and the database's words are
    /// for operators.
    /// - Parameter outcomeUnknown: PostgreSQL stopped answering after it was asked to commit the request's
    ///   change (``StoreError/isOutcomeUnknown``): the detail says it may have been kept, never that nothing was.
    static func storeUnavailable(outcomeUnknown: Bool = false) -> Problem {
        unavailable(
            outcomeUnknown
                ? "the database stopped answering before it confirmed the change, which may or may not have been kept "
                    + "(the server log says why); retry later (a call placed again with the same Idempotency-Key is made once)"
                : "the database cannot be reached or written (the server log says why); nothing was changed; retry later"
        )
    }

    /// 429: a rate limit refused the request; the detail names the limit and its flag (the response carries
    /// `Retry-After`, see ``RateLimitExceeded``).
    static func rateLimited(_ detail: String) -> Problem {
        problem(.rateLimited, "Too many requests", 429, detail)
    }

    /// 426: a plain request to the WebSocket event stream (RFC 9110 §15.5.22; the response names
    /// `Upgrade: websocket`).
    static func upgradeRequired() -> Problem {
        problem(
            .upgradeRequired, "Upgrade required", 426,
            "GET /v1/events is a WebSocket: send it as an upgrade (RFC 6455 §4.1)")
    }

    /// 503: the server is draining its requests before it stops.
    static func shuttingDown() -> Problem {
        unavailable("the server is shutting down; retry")
    }

    /// 503: SQLite is busy (another writer holds the lock past the busy timeout); nothing was changed.
    static func storeBusy() -> Problem {
        unavailable("the database is busy; retry")
    }

    /// 409: the call is not in a state that allows the action; `state` is the call's, so the client can
    /// catch up without another request.
    static func callStateConflict(_ detail: String, state: CallState?) -> Problem {
        problem(.callStateConflict, "Call state conflict", 409, detail, callState: state)
    }

    /// 503: the server is not ready or shutting down.
    public static func unavailable() -> Problem {
        unavailable("the server is not available; retry")
    }

    /// 500: an unexpected failure; details go to the log, not the client.
    public static func internalError() -> Problem {
        problem(.internalError, "Internal error", 500, "the server failed; nothing was changed")
    }

    /// The problem a refusal of the call service is told to the client as.
    static func from(_ error: CallServiceError) -> Problem {
        switch error {
        case .callNotFound: return callNotFound()
        case .invalidCallee: return invalidField("callee is not a valid user id")
        case .selfCall: return selfCall()
        case .userNotFound(let id): return userNotFound(id)
        case .invalidDeviceID: return invalidDeviceID()
        case .unknownDevice(let id): return unknownDevice(id)
        case .pushOutcomesForCalleeOnly:
            return forbidden("push outcomes are shown to the callee only: they describe the callee's devices")
        case .notAccepted(let detail, let state, let legState):
            var problem = callStateConflict(detail, state: state)
            problem.legState = legState
            return problem
        case .rule(let error): return from(error)
        case .missingCallee: return malformed("the body needs callee (a 1:1 call) or callees (a group call)")
        case .invalidRequest(let detail): return invalidField(detail)
        case .duplicateCallees(let ids):
            var problem = problem(
                .duplicateCallee, "Duplicate callee", 422,
                "callees names \(ids.joined(separator: ", ")) more than once; name each person once")
            problem.callees = ids
            return problem
        case .tooManyCallees(let limit): return tooManyCallees(limit: limit)
        case .usersNotFound(let ids):
            var problem = problem(
                .userNotFound, "User not found", 404,
                "no user \(ids.joined(separator: ", ")); nobody was rung")
            problem.callees = ids
            return problem
        case .groupCallsUnavailable:
            return unavailable(
                "a server of this cluster does not know group calls yet (a rolling upgrade); retry when every server "
                    + "runs this version")
        }
    }

    /// 422: more callees than the server rings in one call (`--max-callees-per-call`).
    static func tooManyCallees(limit: Int) -> Problem {
        problem(
            .tooManyCallees, "Too many callees", 422,
            "a call rings at most \(limit) callees (--max-callees-per-call)")
    }

    /// Maps a refusal of the call state machine; a callee of a group call also learns their leg's state.
    static func from(_ error: CallRuleError) -> Problem {
        if error.isNotParticipant { return callNotFound() }
        var problem: Problem
        if error.isWrongParty {
            problem = forbidden(error.detail)
        } else if error.isAnsweredElsewhere {
            problem = Self.problem(.answeredElsewhere, "Answered elsewhere", 409, error.detail, callState: error.state)
        } else if error.isCalleeAlreadyRung {
            problem = Self.problem(
                .calleeAlreadyRung, "Callee already rung", 409, error.detail, callState: error.state)
            problem.callees = error.callees
        } else if error.isTooManyCallees {
            problem = Self.problem(.tooManyCallees, "Too many callees", 422, error.detail)
        } else {
            problem = callStateConflict(error.detail, state: error.state)
        }
        problem.legState = error.legState
        return problem
    }
}
