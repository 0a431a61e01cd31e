package dev.ringer.reactnative

import com.facebook.react.bridge.Arguments
import com.facebook.react.bridge.Promise
import com.facebook.react.bridge.ReactApplicationContext
import com.facebook.react.bridge.ReadableArray
import com.facebook.react.bridge.ReadableMap
import com.facebook.react.bridge.ReadableType
import dev.ringer.kit.AnswerPolicy
import dev.ringer.kit.CallIds
import org.json.JSONObject

/**
 * The `Ringer` TurboModule: JavaScript's face of the process's [RingerReactHost]. Each method checks its arguments,
 * asks the host, and settles the promise; nothing it is given makes it throw (a refusal rejects with a
 * [BridgeError] code: `invalid_argument` for a bad argument, `not_configured` for any method but `configure` and
 * `getInitialEvents` before this JavaScript instance's `configure`, …). Events reach JavaScript through codegen's
 * `emitOnEvent` only after JavaScript called `getInitialEvents` (the host's relay is attached then), so never before
 * JavaScript looked the module up and its emitter callback exists. [invalidate] detaches the relay: events are kept
 * for the next JavaScript instance. It takes no activity intents: the notification's answer is taken natively
 * (`RingerAnswerActivity`, in front of the app's activity), because a running activity's `onNewIntent` reaches a
 * module only while a JavaScript instance exists, and a reload has none ([CallIntents]).
 *
 * React Native creates one per JavaScript instance and calls its methods on its native-modules thread.
 */
class RingerModule(reactContext: ReactApplicationContext) : NativeRingerSpec(reactContext) {
    private val hostLazy = lazy { RingerReactHost.start(reactApplicationContext) }
    private val host: RingerReactHost by hostLazy
    @Volatile private var configured = false
    private val sink: (JSONObject) -> Unit = { event -> emitOnEvent(ReactJson.map(event)) }

    override fun configure(options: ReadableMap?, promise: Promise) = reply(promise, beforeConfigure = true) {
        if (options == null) throw invalid("options must be an object")
        val server = when {
            !options.hasKey("server") || options.isNull("server") -> null
            options.getType("server") != ReadableType.String -> throw invalid("server must be a string or null")
            else -> options.getString("server")
        }
        if (server != null && !ManifestSettings.isServerUrl(server)) throw invalid("server must be an http(s) URL")
        val state = host.configure(server)
        configured = true
        state
    }

    override fun getInitialEvents(promise: Promise) = reply(promise, beforeConfigure = true) { host.attach(sink) }

    override fun login(userToken: String?, promise: Promise) = reply(promise) {
        host.login(text(userToken, "userToken"))
    }

    override fun logout(promise: Promise) = reply(promise) { host.logout() }

    override fun startCall(callee: String?, video: Boolean, callWaiting: String?, promise: Promise) = reply(promise, settles = false) {
        host.startCall(text(callee, "callee"), video, callWaiting(callWaiting)) { call, error ->
            if (error != null) reject(promise, error) else promise.resolve(ReactJson.value(call))
        }
    }

    override fun startGroupCall(callees: ReadableArray?, video: Boolean, answerPolicy: String?, callWaiting: String?,
                                promise: Promise) =
        reply(promise, settles = false) {
            val policy = when (answerPolicy) {
                AnswerPolicy.FIRST_ANSWER.rawValue -> AnswerPolicy.FIRST_ANSWER
                AnswerPolicy.ALL_MAY_JOIN.rawValue -> AnswerPolicy.ALL_MAY_JOIN
                else -> throw invalid("answerPolicy must be first_answer or all_may_join")
            }
            host.startGroupCall(users(callees), video, policy, callWaiting(callWaiting)) { call, error ->
                if (error != null) reject(promise, error) else promise.resolve(ReactJson.value(call))
            }
        }

    override fun ringMore(callId: String?, callees: ReadableArray?, promise: Promise) = reply(promise, settles = false) {
        host.ringMore(id(callId), users(callees)) { participants, error ->
            if (error != null) reject(promise, error) else promise.resolve(ReactJson.value(participants))
        }
    }

    override fun answer(callId: String?, promise: Promise) = reply(promise) { host.answer(id(callId)) }

    override fun decline(callId: String?, promise: Promise) = reply(promise) { host.decline(id(callId)) }

    override fun hangUp(callId: String?, promise: Promise) = reply(promise) { host.hangUp(id(callId)) }

    override fun getCalls(promise: Promise) = reply(promise) { host.calls() }

    override fun getReadiness(promise: Promise) = reply(promise) { host.readiness() }

    override fun openReadinessSettings(problem: String?, promise: Promise) = reply(promise) {
        host.openReadinessSettings(text(problem, "problem"))
    }

    override fun getRecentCalls(limit: Double, before: String?, promise: Promise) = reply(promise, settles = false) {
        if (limit.isNaN() || limit < 0 || limit > 100 || limit != Math.floor(limit)) {
            throw invalid("limit must be a whole number from 1 to 100, or 0")
        }
        host.recentCalls(limit.toInt(), before?.let { id(it) }) { page, error ->
            if (error != null) reject(promise, error) else promise.resolve(ReactJson.value(page))
        }
    }

    override fun setHeld(callId: String?, held: Boolean, promise: Promise) = reply(promise) { host.setHeld(id(callId), held) }

    override fun setMuted(callId: String?, muted: Boolean, promise: Promise) = reply(promise) { host.setMuted(id(callId), muted) }

    override fun playDtmf(callId: String?, digits: String?, promise: Promise) = reply(promise) {
        host.playDtmf(id(callId), text(digits, "digits"))
    }

    override fun getAudioRoutes(promise: Promise) = reply(promise) { host.audioRoutes() }

    override fun setAudioRoute(outputId: String?, promise: Promise) = reply(promise) {
        host.setAudioRoute(text(outputId, "outputId"))
    }

    override fun getCallHistory(limit: Double, promise: Promise) = reply(promise) {
        if (limit.isNaN() || limit < 0 || limit != Math.floor(limit)) throw invalid("limit must be a whole number, 0 or more")
        host.history(Math.min(limit, CallHistory.DEFAULT_CAPACITY.toDouble()).toInt())
    }

    override fun invalidate() {
        if (hostLazy.isInitialized()) host.detach(sink)
        super.invalidate()
    }

    /**
     * Runs [body] and settles [promise] with what it returns (unless [settles] is false: the body settles it later),
     * or rejects with the [BridgeError] it throws; anything else it throws rejects `native`. Before this JavaScript
     * instance's configure only the methods marked [beforeConfigure] run.
     */
    private fun reply(promise: Promise, beforeConfigure: Boolean = false, settles: Boolean = true, body: () -> Any?) {
        try {
            if (!beforeConfigure && !configured) throw BridgeError(BridgeError.NOT_CONFIGURED, "call configure first")
            val value = body()
            if (settles) promise.resolve(ReactJson.value(if (value == Unit) null else value))
        } catch (e: BridgeError) {
            reject(promise, e)
        } catch (e: VirtualMachineError) {
            throw e
        } catch (e: Throwable) {
            reject(promise, BridgeError(BridgeError.NATIVE, e.toString()))
        }
    }

    private fun reject(promise: Promise, error: BridgeError) {
        val type = error.problemType
        val status = error.status
        if (type == null && status == null) return promise.reject(error.code, error.message)
        val info = Arguments.createMap()
        if (type != null) info.putString("problemType", type)
        if (status != null) info.putInt("status", status)
        promise.reject(error.code, error.message, info)
    }

    private fun invalid(message: String) = BridgeError(BridgeError.INVALID_ARGUMENT, message)

    /** A non-empty string argument. */
    private fun text(value: String?, name: String): String =
        if (value == null || value.isBlank()) throw invalid("$name must be a non-empty string") else value

    /** A callee list: one or more non-empty user ids. */
    private fun users(callees: ReadableArray?): List<String> {
        if (callees == null || callees.size() == 0) throw invalid("callees must name at least one user")
        return (0 until callees.size()).map { index ->
            if (callees.getType(index) != ReadableType.String) throw invalid("callees[$index] must be a string")
            text(callees.getString(index), "callees[$index]")
        }
    }

    /** A call id: the server's UUID, lowercased as the SDK keys calls. */
    /** `callWaiting` as JavaScript sends it: `on`, `off`, or empty for the server's setting. */
    private fun callWaiting(value: String?): Boolean? = when (value ?: "") {
        "" -> null
        "on" -> true
        "off" -> false
        else -> throw invalid("callWaiting must be on, off or empty")
    }

    private fun id(callId: String?): String =
        callId?.let { CallIds.normalize(it) } ?: throw invalid("callId must be the server's call id (a UUID)")
}
