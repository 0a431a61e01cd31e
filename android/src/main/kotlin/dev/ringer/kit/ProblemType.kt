package dev.ringer.kit

/**
 * The stable `type` URIs of Ringer's `application/problem+json` errors (RFC 9457); apps branch on these,
 * never on `title` or `detail`. Open: unknown URIs are kept.
 */
data class ProblemType(val rawValue: String) {
    /** The URI. */
    override fun toString(): String = rawValue

    /** The problem types the server sends today. */
    companion object {
        /** Creates `https://ringer.dev/problems/<slug>`. */
        @JvmStatic fun slug(slug: String): ProblemType = ProblemType("https://ringer.dev/problems/$slug")

        /** 400: the body is not JSON, or a field is missing or of the wrong type. */
        @JvmField val MALFORMED_REQUEST = slug("malformed-request")
        /** 422: a value is not acceptable (bad token, unknown platform…). */
        @JvmField val INVALID_FIELD = slug("invalid-field")
        /** 401: no credentials, or an invalid or expired token. */
        @JvmField val UNAUTHORIZED = slug("unauthorized")
        /** 403: authenticated, but not allowed to do this. */
        @JvmField val FORBIDDEN = slug("forbidden")
        /** 404: no such route. */
        @JvmField val NOT_FOUND = slug("not-found")
        /** 404: the callee user is unknown. */
        @JvmField val USER_NOT_FOUND = slug("user-not-found")
        /** 404: the call does not exist or the user is not one of its participants. */
        @JvmField val CALL_NOT_FOUND = slug("call-not-found")
        /** 422: the device id is not registered to the acting user. */
        @JvmField val UNKNOWN_DEVICE = slug("unknown-device")
        /** 422: a user cannot call themselves. */
        @JvmField val SELF_CALL = slug("self-call")
        /** 405: the route exists but not with this method. */
        @JvmField val METHOD_NOT_ALLOWED = slug("method-not-allowed")
        /** 409: too late for this action; the problem's `call_state` says where the call is now. */
        @JvmField val CALL_STATE_CONFLICT = slug("call-state-conflict")
        /** 409: another device of this user answered first. */
        @JvmField val ANSWERED_ELSEWHERE = slug("answered-elsewhere")
        /** 422: a group call's `callees` names a user twice; the problem's `callees` lists them. */
        @JvmField val DUPLICATE_CALLEE = slug("duplicate-callee")
        /** 422: a group call would have more callees than the server's `--max-callees-per-call`. */
        @JvmField val TOO_MANY_CALLEES = slug("too-many-callees")
        /** 409: a ring-more names a callee whose leg already ended (their phone would not ring the call again). */
        @JvmField val CALLEE_ALREADY_RUNG = slug("callee-already-rung")
        /** 413: the request body is too large. */
        @JvmField val PAYLOAD_TOO_LARGE = slug("payload-too-large")
        /** 408: the request body did not arrive within the server's request deadline. */
        @JvmField val REQUEST_TIMEOUT = slug("request-timeout")
        /** 431: the request's header fields are too large. */
        @JvmField val HEADERS_TOO_LARGE = slug("headers-too-large")
        /** 501: the HTTP method is not one the server implements. */
        @JvmField val METHOD_NOT_IMPLEMENTED = slug("method-not-implemented")
        /** 429: the user already holds as many event sockets as the server allows. */
        @JvmField val TOO_MANY_SOCKETS = slug("too-many-sockets")
        /** 429: a rate limit refused the request; `Retry-After` gives the seconds to wait. */
        @JvmField val RATE_LIMITED = slug("rate-limited")
        /** 500: the server failed; nothing was changed. */
        @JvmField val INTERNAL_ERROR = slug("internal-error")
        /** 503: a dependency (database) is unavailable. */
        @JvmField val UNAVAILABLE = slug("unavailable")
        /** 426: a plain HTTP request to the WebSocket event stream. */
        @JvmField val UPGRADE_REQUIRED = slug("upgrade-required")
    }
}
