package dev.ringer.reactnative

import dev.ringer.android.CallUiException
import dev.ringer.kit.Call
import dev.ringer.kit.CallState
import dev.ringer.kit.RingerApiException
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.launch
import org.json.JSONObject

/** Placing a call for JavaScript's `startCall` and `startGroupCall`, and what its failures mean there. */
internal object OutgoingCalls {
    /**
     * Places the call [start] makes on [scope]: [placed] learns a call that rings (its id and callee, the first of a
     * group) before [done] gets the Call (`{callId, direction, peer, hasVideo, state, participants}`; the state may be
     * `busy` or `failed`) or the refusal.
     */
    fun place(scope: CoroutineScope, start: suspend () -> Call,
              placed: (String, CallInfo) -> Unit, done: (JSONObject?, BridgeError?) -> Unit) {
        scope.launch {
            val answer = try {
                val call = start()
                val info = CallInfo(CallInfo.OUTGOING, CallInfo.Peer(call.callee.id, call.callee.name), call.hasVideo)
                if (call.state == CallState.RINGING) placed(call.callId, info)
                SdkObservations.callJson(call.callId, info, call.state.rawValue, call.legs)
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                done(null, refusal(e))
                return@launch
            }
            done(answer, null)
        }
    }

    /**
     * The error JavaScript gets for what placing a call threw: `call_ui_refused` (Telecom), `server_refused` with the
     * problem's type and status, `network` when no answer arrived, and `native` for anything else, a 2xx answer the
     * SDK cannot read among them (the server answered: the network is not what failed).
     */
    fun refusal(error: Exception): BridgeError {
        if (error is CallUiException) return BridgeError(BridgeError.CALL_UI_REFUSED, error.message ?: error.code)
        if (error !is RingerApiException) return BridgeError(BridgeError.NATIVE, error.toString())
        val problem = error.problem
        return when {
            problem != null -> BridgeError(BridgeError.SERVER_REFUSED, error.detail, problem.type, problem.status)
            error.code == RingerApiException.Code.TRANSPORT -> BridgeError(BridgeError.NETWORK, error.detail)
            else -> BridgeError(BridgeError.NATIVE, error.detail)   // UNEXPECTED_RESPONSE: a 2xx it cannot read
        }
    }
}
