package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONException
import org.json.JSONObject
import java.io.IOException
import java.util.UUID

/**
 * The Ringer REST API for one logged-in user (docs/openapi.yaml). Immutable and thread-safe; every call is a
 * suspend function that throws [RingerApiException].
 *
 * @property baseUrl the server's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept).
 * @property userId the logged-in user's id: the `sub` claim of the user token, null when the token is not a
 *   readable JWT. Read without verifying the signature: the server verifies; the phone only uses it to refuse
 *   pushes meant for someone else.
 */
class RingerApiClient private constructor(
    val baseUrl: String,
    private val token: String,
    private val transport: HttpTransport,
    private val serverTimeObserver: ((Long) -> Unit)?
) {
    /**
     * Creates a client.
     * @param baseUrl the server, `http(s)://host[:port][/prefix]`.
     * @param userToken the user token (kept in memory only; never logged, never in [toString]).
     * @param transport how requests are sent, e.g. `OkHttpTransport`.
     */
    constructor(baseUrl: String, userToken: String, transport: HttpTransport) :
        this(baseUrl.trimEnd('/'), userToken, transport, null)

    val userId: String? = JwtSubject.of(token)

    /** The headers that authenticate a request or the event stream: `Authorization: Bearer <token>`. */
    val authorizationHeaders: Map<String, String> get() = mapOf("Authorization" to "Bearer $token")

    /**
     * `PUT /v1/devices/{id}`: registers this device's push tokens (and readiness) for the logged-in user.
     * @throws RingerApiException
     */
    suspend fun registerDevice(id: String, registration: DeviceRegistration): Device =
        request("PUT", "/v1/devices/${segment(id)}", registration.toJson(), "Device") { Device.fromJson(it) }

    /**
     * `DELETE /v1/devices/{id}`: call on logout so the device stops ringing for this user.
     * @throws RingerApiException
     */
    suspend fun unregisterDevice(id: String) {
        send("DELETE", "/v1/devices/${segment(id)}", null)
    }

    /**
     * `POST /v1/calls`.
     * @param callee the user to call.
     * @param hasVideo whether to offer video.
     * @param idempotencyKey sent as `Idempotency-Key`: retrying with the same key returns the same call instead
     *   of ringing the callee again (the server keeps keys for 24 hours).
     * @param callWaiting whether a callee already in a call is rung as a waiting call (true) or the call is `busy`
     *   (false); the server's `--call-waiting` when null.
     * @throws RingerApiException
     */
    suspend fun createCall(callee: String, hasVideo: Boolean = false,
                           idempotencyKey: String = UUID.randomUUID().toString(), callWaiting: Boolean? = null): Call {
        val body = JSONObject().put("callee", callee).put("has_video", hasVideo).putIfSet("call_waiting", callWaiting)
        return request("POST", "/v1/calls", body, "Call", mapOf("Idempotency-Key" to idempotencyKey)) {
            Call.fromJson(it)
        }
    }

    /**
     * `POST /v1/calls` with `callees`: a group call, a leg per callee (docs/call-lifecycle.md "Group calls").
     * @throws RingerApiException 422 `duplicate-callee`, `too-many-callees`; 404 `user-not-found` with `callees`.
     */
    suspend fun createGroupCall(callees: List<String>, answerPolicy: AnswerPolicy? = null, hasVideo: Boolean = false,
                                idempotencyKey: String = UUID.randomUUID().toString(), callWaiting: Boolean? = null): Call {
        val body = JSONObject().put("callees", JSONArray(callees)).put("has_video", hasVideo)
            .putIfSet("answer_policy", answerPolicy?.rawValue).putIfSet("call_waiting", callWaiting)
        return request("POST", "/v1/calls", body, "Call", mapOf("Idempotency-Key" to idempotencyKey)) {
            Call.fromJson(it)
        }
    }

    /**
     * `POST /v1/calls/{id}/ring`: rings more people into a live call.
     * @throws RingerApiException 409 `callee-already-rung` or `call-state-conflict`; 403; 422 as for a group call.
     */
    suspend fun ring(callId: String, callees: List<String>): Call =
        request("POST", "/v1/calls/${segment(callId)}/ring", JSONObject().put("callees", JSONArray(callees)), "Call") {
            Call.fromJson(it)
        }

    /**
     * `POST /v1/calls/{id}/ringing`: this device shows the call.
     * @throws RingerApiException
     */
    suspend fun ringing(callId: String, deviceId: String): Call =
        request("POST", "/v1/calls/${segment(callId)}/ringing", deviceBody(deviceId), "Call") { Call.fromJson(it) }

    /**
     * `POST /v1/calls/{id}/accept`: returns the call and this user's media session.
     * @throws RingerApiException a 409 problem when the call was cancelled or answered elsewhere.
     */
    suspend fun accept(callId: String, deviceId: String): AcceptResponse =
        request("POST", "/v1/calls/${segment(callId)}/accept", deviceBody(deviceId), "AcceptResponse") {
            AcceptResponse.fromJson(it)
        }

    /**
     * `POST /v1/calls/{id}/decline`.
     * @throws RingerApiException
     */
    suspend fun decline(callId: String, deviceId: String): Call =
        request("POST", "/v1/calls/${segment(callId)}/decline", deviceBody(deviceId), "Call") { Call.fromJson(it) }

    /**
     * `POST /v1/calls/{id}/cancel` (the caller, before an answer).
     * @throws RingerApiException
     */
    suspend fun cancel(callId: String): Call =
        request("POST", "/v1/calls/${segment(callId)}/cancel", null, "Call") { Call.fromJson(it) }

    /**
     * `POST /v1/calls/{id}/end` (either party, after an answer).
     * @throws RingerApiException
     */
    suspend fun end(callId: String): Call =
        request("POST", "/v1/calls/${segment(callId)}/end", null, "Call") { Call.fromJson(it) }

    /**
     * `POST /v1/calls/{id}/keepalive`: this user's app is still in the accepted call, so the server does not end
     * it `connection_lost` while the app holds no event socket (docs/call-lifecycle.md). 204 on success.
     * @throws RingerApiException a 409 `call-state-conflict` (with `call_state`) once the call is no longer accepted.
     */
    suspend fun keepalive(callId: String) {
        send("POST", "/v1/calls/${segment(callId)}/keepalive", null)
    }

    /**
     * `GET /v1/calls/{id}`.
     * @throws RingerApiException
     */
    suspend fun call(id: String): Call = request("GET", "/v1/calls/${segment(id)}", null, "Call") { Call.fromJson(it) }

    /**
     * `GET /v1/calls?limit=&before=`: this user's calls, as caller or callee, newest first, a page at a time: the
     * server's call history (recent and missed calls), each as this user reads it. Pass a page's
     * [CallList.nextBefore] as [before] for the next, older page; it is null on the last page (decision 0008 §4).
     * @param limit calls per page, 1 to 100; null for the server's default.
     * @param before the id of the previous page's last call; null for the newest page.
     * @throws RingerApiException `invalid-field` for a limit out of range or a [before] that is no call id,
     *   `call-not-found` for a [before] that names no call of this user's.
     */
    suspend fun recentCalls(limit: Int? = null, before: String? = null): CallList {
        val query = listOfNotNull(limit?.let { "limit=$it" }, before?.let { "before=${segment(it)}" })
        val path = "/v1/calls" + if (query.isEmpty()) "" else query.joinToString("&", prefix = "?")
        return request("GET", path, null, "CallList") { CallList.fromJson(it) }
    }

    /**
     * `GET /v1/calls/{id}/media`: this user's media session for an accepted call (the caller's side).
     * @throws RingerApiException
     */
    suspend fun media(callId: String): MediaSession =
        request("GET", "/v1/calls/${segment(callId)}/media", null, "MediaSession") { MediaSession.fromJson(it) }

    /**
     * The WebSocket URL of the event stream for this device: `ws://…/v1/events?device_id=…&since=…` (`wss` when
     * the base URL is `https`).
     * @param since resume after this `seq`; null to start from now.
     */
    fun eventsUrl(deviceId: String, since: Long?): String {
        val secure = baseUrl.regionMatches(0, "https:", 0, 6, ignoreCase = true)
        val rest = baseUrl.substringAfter("://")
        val query = "device_id=" + PercentEncoding.encode(deviceId) + (since?.let { "&since=$it" } ?: "")
        return (if (secure) "wss://" else "ws://") + rest + "/v1/events?" + query
    }

    /**
     * This client, telling [observer] the server's clock read from every answer's `Date` header (RFC 9110
     * §6.6.1; whole seconds, so the reading is the middle of its second). The call coordinator learns the
     * server-minus-phone clock offset from its own requests this way.
     * @param observer called on the transport's thread with the server's time, Unix milliseconds.
     * @return a copy of this client that reports the server's time.
     */
    fun observingServerTime(observer: (Long) -> Unit): RingerApiClient =
        RingerApiClient(baseUrl, token, transport, observer)

    /** The base URL and user; never the token. */
    override fun toString(): String = "RingerApiClient(baseUrl=$baseUrl, userId=$userId)"

    private fun deviceBody(deviceId: String): JSONObject = JSONObject().put("device_id", deviceId)

    private fun segment(value: String): String = PercentEncoding.encode(value)

    private suspend fun <T> request(method: String, path: String, body: JSONObject?, what: String,
                                    headers: Map<String, String> = emptyMap(), read: (JSONObject) -> T): T {
        val response = send(method, path, body, headers)
        val text = String(response.body, Charsets.UTF_8)
        return try {
            read(RingerJson.parseObject(text, what))
        } catch (e: RingerWireException) {
            throw RingerApiException.unexpectedResponse(e.detail)
        } catch (e: JSONException) {
            throw RingerApiException.unexpectedResponse("$what: ${e.message}")
        }
    }

    private suspend fun send(method: String, path: String, body: JSONObject?,
                             extra: Map<String, String> = emptyMap()): HttpResponse {
        val headers = LinkedHashMap(authorizationHeaders)
        headers.putAll(extra)
        var bytes: ByteArray? = null
        if (body != null) {
            headers["Content-Type"] = "application/json"
            bytes = body.toString().toByteArray(Charsets.UTF_8)
        }
        val response = try {
            transport.send(method, baseUrl + path, headers, bytes)
        } catch (e: IOException) {
            throw RingerApiException.transport("$method $path: ${e.javaClass.simpleName}: ${e.message}")
        }
        val observer = serverTimeObserver
        val date = response.header("Date")?.let { HttpDate.parse(it) }
        if (observer != null && date != null) observer(date + 500)
        if (response.status !in 200..299) throw RingerApiException.problem(problem(response))
        return response
    }

    /** The answer's problem body, or a generic one when it has none (RFC 9457 §4.2: `about:blank`). */
    private fun problem(response: HttpResponse): Problem = try {
        Problem.fromJson(RingerJson.parseObject(String(response.body, Charsets.UTF_8), "Problem"))
    } catch (e: RingerWireException) {
        genericProblem(response.status)
    } catch (e: JSONException) {
        genericProblem(response.status)
    }

    private fun genericProblem(status: Int): Problem = Problem(type = "about:blank", title = "HTTP $status", status = status)
}
