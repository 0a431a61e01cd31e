package dev.ringer.reactnative

import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoutes
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.CallList
import dev.ringer.kit.CallLeg
import dev.ringer.kit.EventStream
import dev.ringer.kit.PhoneCallMachine
import org.json.JSONArray
import org.json.JSONObject

/** The Kotlin SDK's values in the terms [EventTranslator] and JavaScript use. */
internal object SdkObservations {
    /** A coordinator observation as the translator takes it. */
    fun observed(observation: CallCoordinator.Observation): Observed = when (observation) {
        is CallCoordinator.Observation.PushReported -> Observed.PushReported(observation.callId, observation.disposition.rawValue)
        is CallCoordinator.Observation.Ringing -> Observed.Ringing(observation.callId)
        is CallCoordinator.Observation.Answered ->
            Observed.Answered(observation.callId, Observed.Media(observation.media.url, observation.media.token))
        is CallCoordinator.Observation.OutgoingAnswered ->
            Observed.OutgoingAnswered(observation.callId, Observed.Media(observation.media.url, observation.media.token))
        is CallCoordinator.Observation.MediaCanStart ->
            Observed.MediaCanStart(observation.callId, Observed.Media(observation.media.url, observation.media.token))
        is CallCoordinator.Observation.Ended -> Observed.Ended(observation.callId, observation.reason?.rawValue)
        is CallCoordinator.Observation.Event -> {
            val call = observation.event.call
            Observed.ServerEvent(observation.event.type.rawValue, call.callId, call.state.rawValue, call.endReason?.rawValue)
        }
        is CallCoordinator.Observation.RequestFailed -> Observed.RequestFailed(observation.callId, observation.detail)
        is CallCoordinator.Observation.ParticipantsChanged -> Observed.ParticipantsChanged(observation.callId,
            observation.legs.map { Observed.Participant(CallInfo.Peer(it.user.id, it.user.name), it.state.rawValue) })
        is CallCoordinator.Observation.HeldChanged -> Observed.HeldChanged(observation.callId, observation.held)
        is CallCoordinator.Observation.MutedChanged -> Observed.MutedChanged(observation.callId, observation.muted)
        is CallCoordinator.Observation.Dtmf -> Observed.Dtmf(observation.callId, observation.digits)
        is CallCoordinator.Observation.AudioRouteChanged -> Observed.AudioRouteChanged(observation.routes)
    }

    /**
     * The event stream's status as `connectionChanged` names it: a refused upgrade is `closed` (it stopped), an
     * over-long message `lost` (it reconnects).
     */
    fun status(status: EventStream.Status): String = when (status) {
        is EventStream.Status.Connected -> "connected"
        is EventStream.Status.Lost, is EventStream.Status.MessageTooBig -> "lost"
        is EventStream.Status.Restored -> "restored"
        is EventStream.Status.Closed, is EventStream.Status.Refused -> "closed"
        is EventStream.Status.Replaced -> "replaced"
        is EventStream.Status.Unauthorized -> "unauthorized"
    }

    /**
     * A call of the coordinator as the events describe it: an incoming call's caller is the machine's; an outgoing
     * call's callee is what startCall returned ([outgoing]), else (placed a moment ago, startCall has not returned)
     * the machine's callee id with no name. Null for a call the machine knows no party of.
     */
    fun info(call: PhoneCallMachine.PhoneCall, outgoing: Map<String, CallInfo>): CallInfo? {
        if (call.direction == PhoneCallMachine.Direction.OUTGOING) {
            return outgoing[call.callId]
                ?: call.calleeId?.let { CallInfo(CallInfo.OUTGOING, CallInfo.Peer(it, null), call.hasVideo) }
        }
        val caller = call.caller ?: return null
        return CallInfo(CallInfo.INCOMING, CallInfo.Peer(caller.id, caller.name), call.hasVideo, call.group, call.waiting)
    }

    /**
     * startCall's and startGroupCall's Call: `{callId, direction, peer: {id, name}, hasVideo, state, participants}`,
     * `participants` a group call's legs ([participantsJson]) or null.
     */
    /**
     * A page of the server's history as `getRecentCalls()` answers it: `{calls, nextBefore}`, each call
     * `{callId, state, caller, callee, hasVideo, createdAt, acceptedAt, endedAt, endedBy, endReason, waiting,
     * participants}` with times in Unix ms and every key present (`null` where absent).
     */
    fun recentCallsJson(list: CallList): JSONObject {
        val calls = JSONArray()
        for (call in list.calls) {
            calls.put(JSONObject().put("callId", call.callId).put("state", call.state.rawValue)
                .put("caller", CallInfo.Peer(call.caller.id, call.caller.name).toJson())
                .put("callee", CallInfo.Peer(call.callee.id, call.callee.name).toJson())
                .put("hasVideo", call.hasVideo).put("createdAt", call.createdAtMs)
                .put("acceptedAt", call.acceptedAtMs ?: JSONObject.NULL).put("endedAt", call.endedAtMs ?: JSONObject.NULL)
                .put("endedBy", call.endedBy ?: JSONObject.NULL).put("endReason", call.endReason?.rawValue ?: JSONObject.NULL)
                .put("waiting", call.waiting == true)
                .put("participants", call.legs?.let { participantsJson(it) } ?: JSONObject.NULL))
        }
        return JSONObject().put("calls", calls).put("nextBefore", list.nextBefore ?: JSONObject.NULL)
    }

    /** An audio output as JavaScript sees it: `{id, route, name}`. */
    fun outputJson(output: AudioOutput): JSONObject =
        JSONObject().put("id", output.id).put("route", output.route.rawValue).put("name", output.name)

    /** The audio routes as `getAudioRoutes()` answers them and `audioRouteChanged` carries them: `{current, outputs}`. */
    fun routesJson(routes: AudioRoutes): JSONObject = JSONObject()
        .put("current", routes.current?.let(::outputJson) ?: JSONObject.NULL)
        .put("outputs", JSONArray().also { array -> routes.outputs.forEach { array.put(outputJson(it)) } })

    fun callJson(callId: String, info: CallInfo, state: String, legs: List<CallLeg>?): JSONObject = JSONObject()
        .put("callId", callId).put("direction", info.direction).put("peer", info.peer.toJson())
        .put("hasVideo", info.hasVideo).put("state", state)
        .put("participants", legs?.let { participantsJson(it) } ?: JSONObject.NULL)

    /**
     * getCalls' and NativeState's Call: [callJson] and `media`, the `{url, token}` of the call's `accepted` event, null
     * before it.
     */
    fun callJson(callId: String, info: CallInfo, state: String, legs: List<CallLeg>?, media: JSONObject?): JSONObject =
        callJson(callId, info, state, legs).put("media", media ?: JSONObject.NULL)

    /** A group call's legs as JavaScript's participants: `[{user: {id, name}, state}]`, in the order rung. */
    fun participantsJson(legs: List<CallLeg>): JSONArray {
        val array = JSONArray()
        for (leg in legs) {
            array.put(JSONObject().put("user", CallInfo.Peer(leg.user.id, leg.user.name).toJson()).put("state", leg.state.rawValue))
        }
        return array
    }
}
