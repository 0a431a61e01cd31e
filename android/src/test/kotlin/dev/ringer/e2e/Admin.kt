package dev.ringer.e2e

import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import org.json.JSONArray
import org.json.JSONObject
import java.util.UUID
import java.util.concurrent.TimeUnit

/** One HTTP answer: status, body text and headers, read whole. */
class HttpAnswer(val status: Int, val body: String, val contentType: String?) {
    /** The body as a JSON object. @throws AssertionError naming the status and body when it is not one. */
    fun json(): JSONObject = try {
        JSONObject(body)
    } catch (e: org.json.JSONException) {
        throw AssertionError("expected a JSON object, got $status: $body")
    }

    /** The RFC 9457 problem's `type` without the `https://ringer.dev/problems/` prefix, or null. */
    val problemType: String?
        get() = if (contentType?.startsWith("application/problem+json") == true) {
            json().optString("type").substringAfterLast('/')
        } else null

    override fun toString(): String = "$status $body"
}

/** The plain OkHttp client the harness speaks HTTP with (short timeouts: everything is on loopback). */
object PlainHttp {
    /** JSON, as the API takes it. */
    val json: MediaType = MediaType.get("application/json; charset=utf-8")

    /** No retries on connection failure: a test that stops the server must see the failure. */
    val client: OkHttpClient = OkHttpClient.Builder()
        .connectTimeout(3, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS)
        .retryOnConnectionFailure(false).build()

    /**
     * Sends one request and reads the whole answer.
     * @param bearer the `Authorization: Bearer` credential, or null for none. Never logged.
     * @throws java.io.IOException when the server cannot be reached.
     */
    fun send(client: OkHttpClient, method: String, url: String, bearer: String?, body: JSONObject?,
             headers: Map<String, String> = emptyMap()): HttpAnswer {
        val builder = Request.Builder().url(url)
        if (bearer != null) builder.header("Authorization", "Bearer $bearer")
        for ((name, value) in headers) builder.header(name, value)
        val requestBody = when {
            body != null -> RequestBody.create(json, body.toString())
            method == "POST" || method == "PUT" -> RequestBody.create(null, ByteArray(0))
            else -> null
        }
        builder.method(method, requestBody)
        client.newCall(builder.build()).execute().use { response ->
            return HttpAnswer(response.code(), response.body()?.string() ?: "", response.header("Content-Type"))
        }
    }
}

/**
 * The app backend's side of the server: mints user tokens with the admin key (`POST /v1/tokens`).
 */
class Admin(private val cluster: RingerCluster) {
    /**
     * A user token for [userId] (its display name [name]), valid an hour.
     * @throws AssertionError when the server does not answer 201.
     */
    fun mintToken(userId: String, name: String? = null): String {
        val body = JSONObject().put("user_id", userId).put("ttl_seconds", 3600)
        if (name != null) body.put("name", name)
        val answer = PlainHttp.send(PlainHttp.client, "POST", "${cluster.serverUrl}/v1/tokens", cluster.adminKey, body)
        if (answer.status != 201) throw AssertionError("POST /v1/tokens for $userId answered $answer")
        return answer.json().getString("token")
    }

    /** A fresh user (a unique id from [prefix], so that tests sharing a cluster never meet) driven over HTTP. */
    fun newUser(prefix: String, name: String? = null): HttpUser {
        val userId = "$prefix-${RingerCluster.randomHex(4)}"
        return HttpUser(cluster, userId, mintToken(userId, name))
    }
}

/**
 * A user driven over plain HTTP with their token: the caller in every test, and a callee's other device or a
 * callee without the SDK where a test needs one. Every method fails the test (AssertionError) on an
 * unexpected status, unless it returns the [HttpAnswer] for the test to judge.
 */
class HttpUser(private val cluster: RingerCluster, val userId: String, val token: String) {
    /** Any request to the server as this user. @throws java.io.IOException when it cannot be reached. */
    fun request(method: String, path: String, body: JSONObject? = null, headers: Map<String, String> = emptyMap()): HttpAnswer =
        PlainHttp.send(PlainHttp.client, method, cluster.serverUrl + path, token, body, headers)

    /** `PUT /v1/devices/{id}` for an Android phone with this FCM registration token. */
    fun registerAndroidDevice(deviceId: String, fcmToken: String): JSONObject =
        expect(200, request("PUT", "/v1/devices/$deviceId", JSONObject().put("platform", "android").put("fcm_token", fcmToken)))

    /** `GET /v1/devices`: this user's devices. */
    fun devices(): JSONArray = expect(200, request("GET", "/v1/devices")).getJSONArray("devices")

    /** `POST /v1/calls` to [callee] with an Idempotency-Key, as RingerKit sends. @return the call (201). */
    fun placeCall(callee: String, hasVideo: Boolean = false): JSONObject =
        expect(201, request("POST", "/v1/calls", JSONObject().put("callee", callee).put("has_video", hasVideo),
            mapOf("Idempotency-Key" to UUID.randomUUID().toString())))

    /** `POST /v1/calls/{id}/cancel` (the caller gives up). */
    fun cancel(callId: String): JSONObject = expect(200, request("POST", "/v1/calls/$callId/cancel"))

    /** `POST /v1/calls/{id}/end`. */
    fun end(callId: String): JSONObject = expect(200, request("POST", "/v1/calls/$callId/end"))

    /** `POST /v1/calls/{id}/accept` from [deviceId]; the answer for the test to judge (200, or 409 …). */
    fun accept(callId: String, deviceId: String): HttpAnswer =
        request("POST", "/v1/calls/$callId/accept", JSONObject().put("device_id", deviceId))

    /** `POST /v1/calls/{id}/decline` from [deviceId]. */
    fun decline(callId: String, deviceId: String): HttpAnswer =
        request("POST", "/v1/calls/$callId/decline", JSONObject().put("device_id", deviceId))

    /** `GET /v1/calls/{id}`: the call as it is now. */
    fun getCall(callId: String): JSONObject = expect(200, request("GET", "/v1/calls/$callId"))

    /** `GET /v1/calls/{id}/pushes` (callee only): the push attempts. */
    fun pushes(callId: String): JSONArray = expect(200, request("GET", "/v1/calls/$callId/pushes")).getJSONArray("pushes")

    /**
     * Polls `GET /v1/calls/{id}/pushes` until [count] attempts by [provider] are recorded: the sandbox hands a
     * message to the phone before its HTTP answer reaches the server, so the phone can see a push first.
     * @throws AssertionError with the attempts seen after [timeoutMs].
     */
    fun awaitPushes(callId: String, provider: String, count: Int, timeoutMs: Long = 5_000): List<JSONObject> {
        val deadline = System.currentTimeMillis() + timeoutMs
        while (true) {
            val all = pushes(callId)
            val matching = (0 until all.length()).map { all.getJSONObject(it) }.filter { it.optString("provider") == provider }
            if (matching.size >= count) return matching
            if (System.currentTimeMillis() > deadline) {
                throw AssertionError("call $callId has ${matching.size} $provider pushes, expected $count: $all")
            }
            Thread.sleep(25)
        }
    }

    /**
     * Polls `GET /v1/calls/{id}` until its state is [state].
     * @throws AssertionError with the last state seen after [timeoutMs].
     */
    fun awaitCallState(callId: String, state: String, timeoutMs: Long = 5_000): JSONObject {
        val deadline = System.currentTimeMillis() + timeoutMs
        var call = getCall(callId)
        while (call.getString("state") != state) {
            if (System.currentTimeMillis() > deadline) {
                throw AssertionError("call $callId stayed ${call.getString("state")}, expected $state: $call")
            }
            Thread.sleep(25)
            call = getCall(callId)
        }
        return call
    }

    private fun expect(status: Int, answer: HttpAnswer): JSONObject {
        if (answer.status != status) throw AssertionError("expected $status, got $answer")
        return answer.json()
    }
}
