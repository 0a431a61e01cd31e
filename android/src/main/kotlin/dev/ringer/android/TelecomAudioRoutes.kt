package dev.ringer.android

import android.os.OutcomeReceiver
import android.telecom.CallAudioState
import android.telecom.CallEndpoint
import android.telecom.CallEndpointException
import android.telecom.Connection
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoute
import java.util.concurrent.Executor

/**
 * The phone's audio route as Telecom reports it for a self-managed call, in the core's words ([AudioOutput]), and the
 * core's choice carried out (docs/decisions/0008 §2). API 34+: call endpoints (`onCallEndpointChanged`,
 * `onAvailableCallEndpointsChanged`, `requestCallEndpointChange`), one output per endpoint, so two Bluetooth devices
 * are two outputs; below: `CallAudioState`'s route and supported-route mask (`onCallAudioStateChanged`,
 * `setAudioRoute`), one output per route. Telecom reports the route per connection, but it is the phone's: whichever
 * connection said it last is believed. Not thread-safe: [TelecomCallUi] calls it under its lock.
 * @param sdkInt the device's API level: from 34 the endpoint callbacks are read and the deprecated audio state ignored
 *   (Telecom calls both there).
 */
internal class TelecomAudioRoutes(private val sdkInt: Int) {
    private var endpoints: List<CallEndpoint> = emptyList()
    private var current: CallEndpoint? = null

    /** A reading of the route for the core: the current output's id (null when none) and every output. */
    class Reading(val current: String?, val outputs: List<AudioOutput>)

    /** `Connection.onCallEndpointChanged` (API 34): the audio moved. */
    fun endpointChanged(endpoint: CallEndpoint): Reading? {
        if (sdkInt < ENDPOINTS_API) return null
        current = endpoint
        return reading()
    }

    /** `Connection.onAvailableCallEndpointsChanged` (API 34): a device came or went. */
    fun availableEndpointsChanged(available: List<CallEndpoint>): Reading? {
        if (sdkInt < ENDPOINTS_API) return null
        endpoints = ArrayList(available)
        return reading()
    }

    /** `Connection.onCallAudioStateChanged` below API 34; ignored from 34, where the endpoints say the same. */
    fun audioStateChanged(state: CallAudioState): Reading? {
        if (sdkInt >= ENDPOINTS_API) return null
        val outputs = ROUTES.filter { (route, _) -> state.supportedRouteMask and route != 0 }.map { it.second }
        val current = ROUTES.firstOrNull { (route, _) -> state.route == route }?.second
        return Reading(current?.id, outputs)
    }

    /**
     * Asks Telecom to move the audio to [output] through [connection]: the endpoint with that output's id on API 34+,
     * the route with that id below. An output Telecom no longer lists, or a refusal, changes nothing: the core follows
     * the route Telecom reports.
     */
    fun apply(output: AudioOutput, connection: Connection) {
        if (sdkInt >= ENDPOINTS_API) {
            val endpoint = endpoints.firstOrNull { outputOf(it).id == output.id } ?: return
            connection.requestCallEndpointChange(endpoint, DIRECT, IGNORED)
        } else {
            val route = ROUTES.firstOrNull { it.second.id == output.id }?.first ?: return
            @Suppress("DEPRECATION") connection.setAudioRoute(route)
        }
    }

    private fun reading(): Reading {
        val outputs = endpoints.map(::outputOf)
        return Reading(current?.let { outputOf(it).id }?.takeIf { id -> outputs.any { it.id == id } }, outputs)
    }

    companion object {
        /** The API level of call endpoints (Android 14). */
        const val ENDPOINTS_API = 34

        /** Below API 34, one output per route bit, in the order a route picker lists them. */
        private val ROUTES = listOf(
            CallAudioState.ROUTE_EARPIECE to AudioOutput("earpiece", AudioRoute.EARPIECE, "Phone"),
            CallAudioState.ROUTE_SPEAKER to AudioOutput("speaker", AudioRoute.SPEAKER, "Speaker"),
            CallAudioState.ROUTE_WIRED_HEADSET to AudioOutput("wired", AudioRoute.WIRED, "Wired headset"),
            CallAudioState.ROUTE_BLUETOOTH to AudioOutput("bluetooth", AudioRoute.BLUETOOTH, "Bluetooth"),
            CallAudioState.ROUTE_STREAMING to AudioOutput("streaming", AudioRoute.OTHER, "Streaming"))

        /** A call endpoint as an output ([endpointOutput]), with Telecom's name. */
        @JvmStatic fun outputOf(endpoint: CallEndpoint): AudioOutput {
            val route = when (endpoint.endpointType) {
                CallEndpoint.TYPE_EARPIECE -> AudioRoute.EARPIECE
                CallEndpoint.TYPE_SPEAKER -> AudioRoute.SPEAKER
                CallEndpoint.TYPE_WIRED_HEADSET -> AudioRoute.WIRED
                CallEndpoint.TYPE_BLUETOOTH -> AudioRoute.BLUETOOTH
                else -> AudioRoute.OTHER
            }
            return endpointOutput(route, endpoint.identifier.toString(), endpoint.endpointName.toString())
        }

        /**
         * An endpoint of [route] as an output, Telecom's or Core-Telecom's: the earpiece and the speaker by the ids both
         * platforms give them (`earpiece`, `speaker`), so an app can ask for them by name; anything else by the
         * endpoint's [identifier] (two headsets are two outputs).
         */
        @JvmStatic fun endpointOutput(route: AudioRoute, identifier: String, name: String): AudioOutput = when (route) {
            AudioRoute.EARPIECE -> AudioOutput("earpiece", route, name)
            AudioRoute.SPEAKER -> AudioOutput("speaker", route, name)
            else -> AudioOutput(identifier, route, name)
        }

        private val DIRECT = Executor { it.run() }

        /** Telecom's answer needs no handling: the route it reports afterwards is what counts. */
        private val IGNORED = object : OutcomeReceiver<Void, CallEndpointException> {
            override fun onResult(result: Void?) {}
            override fun onError(error: CallEndpointException) {}
        }
    }
}
