package dev.ringer.kit

/**
 * What kind of device an [AudioOutput] is, in the words both platforms share (docs/decisions/0008 §2). Swift:
 * `AudioRoute`.
 * @property rawValue the vectors' spelling.
 */
enum class AudioRoute(val rawValue: String) {
    /** The receiver held to the ear (`CallEndpoint.TYPE_EARPIECE`, `CallAudioState.ROUTE_EARPIECE`). */
    EARPIECE("earpiece"),
    /** The loudspeaker (`TYPE_SPEAKER`, `ROUTE_SPEAKER`). */
    SPEAKER("speaker"),
    /** A headset on a wire or USB (`TYPE_WIRED_HEADSET`, `ROUTE_WIRED_HEADSET`). */
    WIRED("wired"),
    /** A Bluetooth headset or speaker (`TYPE_BLUETOOTH`, `ROUTE_BLUETOOTH`). */
    BLUETOOTH("bluetooth"),
    /** A car's audio system (iOS CarPlay; Android Auto's calls come over Bluetooth). */
    CAR("car"),
    /** Anything else the system routes to (`TYPE_STREAMING`, AirPlay). */
    OTHER("other");

    companion object {
        /** The route spelled [rawValue], or null. */
        @JvmStatic fun of(rawValue: String): AudioRoute? = values().firstOrNull { it.rawValue == rawValue }
    }
}

/**
 * One place the call's audio can go, as the platform names it. Swift: `AudioOutput`.
 * @property id stable while the device is connected: `earpiece` and `speaker` for the built-in ones, the platform's
 *   identifier otherwise (the `CallEndpoint`'s identifier on API 34+, the route's name below).
 * @property route what kind of device it is.
 * @property name the name to show ("Pixel Buds", "Speaker"), as the platform gives it.
 */
data class AudioOutput(val id: String, val route: AudioRoute, val name: String)

/**
 * Where the call's audio goes now and where it could go: what [CallCoordinator.Observation.AudioRouteChanged] tells
 * the app, for an audio-route button. Swift: `AudioRoutes`.
 * @property current the output in use, if the system said one.
 * @property outputs every output the app may choose, in the order the system listed them.
 */
data class AudioRoutes(val current: AudioOutput?, val outputs: List<AudioOutput>)

/** Something that happened to the phone's audio route; fed to [AudioRouteMachine.handle]. Swift: `AudioRouteInput`. */
sealed class AudioRouteInput {
    /**
     * The system's route changed or was first read (`Connection.onCallEndpointChanged` and
     * `onAvailableCallEndpointsChanged` on API 34+, `onCallAudioStateChanged` below). [current] is an id of [outputs],
     * or null when the system names none.
     */
    data class OutputsChanged(val current: String?, val outputs: List<AudioOutput>) : AudioRouteInput()

    /** The app chose an output by id (its audio-route button). */
    data class Select(val outputId: String) : AudioRouteInput()

    /** The calls' audio started (the connection went active); [video]: the call with the audio is a video call. */
    data class AudioActivated(val video: Boolean) : AudioRouteInput()

    /** The calls' audio stopped; [callsLeft]: some call is still up (held), so its choice is kept for its resume. */
    data class AudioDeactivated(val callsLeft: Boolean) : AudioRouteInput()
}

/** What the owner of an [AudioRouteMachine] must carry out, in order. Swift: `AudioRouteEffect`. */
sealed class AudioRouteEffect {
    /**
     * Ask the system to send the audio there (`requestCallEndpointChange` on API 34+, `setAudioRoute` below); its
     * answer comes back as [AudioRouteInput.OutputsChanged].
     */
    data class Apply(val output: AudioOutput) : AudioRouteEffect()

    /** Observation: the route or the outputs to choose from changed. */
    data class RouteChanged(val routes: AudioRoutes) : AudioRouteEffect()
}

/**
 * Decides where a call's audio goes: the phone's route is the system's, and the app's choice goes through the system,
 * so the system's own surfaces and the app's button never disagree (docs/decisions/0008 §2). Pure: no I/O, no clock;
 * the same rules as Swift's `AudioRouteMachine`, pinned by TestVectors/audio-route.
 *
 * Rules:
 * - The system says where the audio is: the app hears every change of the current output or of the outputs
 *   available, once, and only from the system.
 * - The app's choice goes through the system: choosing an output the system does not list is refused; one chosen while
 *   no call's audio runs is applied when it starts.
 * - A choice lasts the call: it is applied again when a held call's audio comes back, and forgotten when the last call
 *   ends, so the next call starts on the system's default.
 * - A device connected during the call takes the audio: when the system moves the audio to an output it did not list
 *   before, the app's earlier choice is dropped; when the chosen device goes away, so does the choice.
 * - A video call starts on the speaker: when a video call's audio starts on the earpiece and the app chose nothing,
 *   the speaker is asked for.
 */
class AudioRouteMachine {
    /** What the system last said. */
    var routes = AudioRoutes(null, emptyList())
        private set

    /** The output the app chose for the calls now up, by id; null when it chose none. */
    var chosen: String? = null
        private set

    /** True while the calls' audio runs. */
    var audioActive = false
        private set

    /** True when the system lists an output with this id (the app's choice is taken then). */
    fun maySelect(outputId: String): Boolean = routes.outputs.any { it.id == outputId }

    /** Applies one input and returns the effects to carry out, in order. */
    fun handle(input: AudioRouteInput): List<AudioRouteEffect> = when (input) {
        is AudioRouteInput.OutputsChanged -> outputsChanged(input.current, input.outputs)
        is AudioRouteInput.Select -> if (!maySelect(input.outputId)) emptyList() else {
            chosen = input.outputId
            if (audioActive) applyChoice() else emptyList()
        }
        is AudioRouteInput.AudioActivated -> {
            audioActive = true
            val speaker = routes.outputs.firstOrNull { it.route == AudioRoute.SPEAKER }
            when {
                chosen != null -> applyChoice()
                input.video && routes.current?.route == AudioRoute.EARPIECE && speaker != null ->
                    listOf(AudioRouteEffect.Apply(speaker))
                else -> emptyList()
            }
        }
        is AudioRouteInput.AudioDeactivated -> {
            audioActive = false
            if (!input.callsLeft) chosen = null
            emptyList()
        }
    }

    private fun outputsChanged(currentId: String?, outputs: List<AudioOutput>): List<AudioRouteEffect> {
        val before = routes
        val current = currentId?.let { id -> outputs.firstOrNull { it.id == id } }
        routes = AudioRoutes(current, outputs)
        if (current != null && current.id != chosen && before.outputs.isNotEmpty() &&
            before.outputs.none { it.id == current.id }) {
            chosen = null
        }
        chosen?.let { if (!maySelect(it)) chosen = null }
        return if (routes == before) emptyList() else listOf(AudioRouteEffect.RouteChanged(routes))
    }

    private fun applyChoice(): List<AudioRouteEffect> {
        val id = chosen ?: return emptyList()
        if (id == routes.current?.id) return emptyList()
        val output = routes.outputs.firstOrNull { it.id == id } ?: return emptyList()
        return listOf(AudioRouteEffect.Apply(output))
    }
}
