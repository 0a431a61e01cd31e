package dev.ringer.lab

import org.json.JSONObject
import java.io.PrintStream

/**
 * A request the host refuses, answered as `{"id": …, "error": {"code": [code], "message": …}}`
 * (docs/android-phone-host.md, "Errors").
 * @property code a stable name the runner branches on: `bad_request`, `unknown_command`, `not_started`,
 *   `already_started`, `unknown_phone`, `phone_exists`, `app_not_running`, `no_such_call`, `registration_failed`,
 *   `failed`.
 */
class HostError(val code: String, message: String) : Exception(message)

/**
 * The host's standard output: one JSON object per line, responses and events interleaved, each line written whole
 * (one lock), flushed at once so the runner sees it without delay. Thread-safe.
 * @param out where lines go (standard output).
 * @param clock scenario time for the events' `t_ms`; replaced by `start`.
 */
class HostOutput(private val out: PrintStream, @Volatile var clock: ScaledClock = ScaledClock.real()) {
    private val lock = Any()

    /** Writes a response: `{"id": id, "ok": true, "result": result}`. */
    fun ok(id: Any?, result: JSONObject) = write(JSONObject().put("id", id ?: JSONObject.NULL).put("ok", true).put("result", result))

    /** Writes an error response: `{"id": id, "ok": false, "error": {"code", "message"}}`. */
    fun error(id: Any?, code: String, message: String) = write(JSONObject().put("id", id ?: JSONObject.NULL).put("ok", false)
        .put("error", JSONObject().put("code", code).put("message", message)))

    /**
     * Writes an event: `{"event": name, "phone": phone, "t_ms": scenario time, …fields}`.
     * @param fields the event's own fields; `event`, `phone` and `t_ms` are set here.
     */
    fun event(name: String, phone: String?, fields: JSONObject) {
        fields.put("event", name).put("phone", phone ?: JSONObject.NULL).put("t_ms", clock.nowMs())
        write(fields)
    }

    private fun write(line: JSONObject) = synchronized(lock) {
        out.println(line.toString())
        out.flush()
    }
}

/** Reading a request's fields, each failure a [HostError] `bad_request` naming the field. */
object RequestFields {
    /** A required string. @throws HostError when missing or not a string. */
    fun string(request: JSONObject, name: String): String {
        val value = request.opt(name)
        if (value !is String || value.length == 0) throw HostError("bad_request", "`$name` must be a non-empty string")
        return value
    }

    /** An optional string: null when missing or null. @throws HostError when another type. */
    fun optionalString(request: JSONObject, name: String): String? {
        val value = request.opt(name)
        if (value == null || value == JSONObject.NULL) return null
        if (value !is String) throw HostError("bad_request", "`$name` must be a string or null")
        return value
    }

    /** A boolean, [default] when missing. @throws HostError when another type. */
    fun boolean(request: JSONObject, name: String, default: Boolean? = null): Boolean {
        val value = request.opt(name)
        if (value == null && default != null) return default
        if (value !is Boolean) throw HostError("bad_request", "`$name` must be true or false")
        return value
    }

    /** A number, [default] when missing. @throws HostError when another type. */
    fun number(request: JSONObject, name: String, default: Double? = null): Double {
        val value = request.opt(name)
        if (value == null && default != null) return default
        if (value !is Number) throw HostError("bad_request", "`$name` must be a number")
        return value.toDouble()
    }
}
