package dev.ringer.kit

/**
 * A failed API call: the server's problem, or no usable answer.
 *
 * @property code which kind of failure; branch on [problem]'s type, not on [detail].
 * @property problem the server's problem (`application/problem+json`, RFC 9457), when it answered with an error.
 * @property detail what went wrong, for logs; never contains the user token.
 */
class RingerApiException private constructor(val code: Code, val problem: Problem?, val detail: String) :
    Exception(detail) {
    /** The kinds of failure. */
    enum class Code {
        /** The server answered with an error status (and usually a problem body). */
        PROBLEM,
        /** No answer arrived (network down, refused, timeout): the request may or may not have been applied. */
        TRANSPORT,
        /** A 2xx answer whose body could not be read. */
        UNEXPECTED_RESPONSE
    }

    /**
     * True when retrying later may succeed: no answer arrived, or the server answered 5xx, `408 Request Timeout` or
     * `429 Too Many Requests` (RFC 9110 §15.5.9, RFC 6585 §4: the request was not processed).
     */
    val isRetryable: Boolean
        get() {
            val status = problem?.status ?: 0
            return code == Code.TRANSPORT || status >= 500 || status == 408 || status == 429
        }

    override fun toString(): String = "RingerApiException($code: $detail)"

    /** The ways to make one. */
    companion object {
        /** The server refused the request with [problem]. */
        @JvmStatic fun problem(problem: Problem): RingerApiException = RingerApiException(
            Code.PROBLEM, problem, "${problem.status} ${problem.type}: ${problem.detail ?: problem.title}")

        /** No answer arrived; retry idempotent requests. */
        @JvmStatic fun transport(detail: String): RingerApiException = RingerApiException(Code.TRANSPORT, null, detail)

        /** The answer could not be read. */
        @JvmStatic fun unexpectedResponse(detail: String): RingerApiException =
            RingerApiException(Code.UNEXPECTED_RESPONSE, null, detail)
    }
}
