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

    /**
     * The calls are over and something was asked of the system during them: give the route back to it (Android:
     * nothing, Telecom's routing ends with the call; iOS: no override, no preferred input).
     */
    object Release : AudioRouteEffect()

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
 *   available (their ids, kinds or names), once, and only from the system.
 * - The app's choice goes through the system: choosing an output the system does not list is refused and changes
 *   nothing; one chosen while no call's audio runs is asked for when it starts. While the system has not yet moved the
 *   audio where asked, other readings change no choice.
 * - A choice lasts the call: it is asked for again whenever the calls' audio starts (after a hold too), and forgotten
 *   when the last call ends, when the route is also given back to the system if anything was asked of it.
 * - The user's later act wins: when, with the audio running and the choice in effect, the system moves the audio
 *   elsewhere, the choice is dropped; so is it when a device the system did not list before takes the audio, or when
 *   the chosen device goes away.
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

    /** The output last asked of the system, until the system reports the audio there (or the audio stops). */
    private var pending: String? = null

    /** True once something was asked of the system during the calls now up: the route is given back after them. */
    private var applied = false

    /** True when the system lists an output with this id (the app's choice is taken then). */
    fun maySelect(outputId: String): Boolean = routes.outputs.any { it.id == outputId }

    /** Applies one input and returns the effects to carry out, in order. */
    fun handle(input: AudioRouteInput): List<AudioRouteEffect> = when (input) {
        is AudioRouteInput.OutputsChanged -> outputsChanged(input.current, input.outputs)
        is AudioRouteInput.Select -> when {
            !maySelect(input.outputId) -> emptyList()
            else -> {
                chosen = input.outputId
                if (audioActive && input.outputId != routes.current?.id && input.outputId != pending) ask(input.outputId)
                else emptyList()
            }
        }
        is AudioRouteInput.AudioActivated -> {
            audioActive = true
            val choice = chosen
            val speaker = routes.outputs.firstOrNull { it.route == AudioRoute.SPEAKER }
            when {
                choice != null -> ask(choice)
                input.video && routes.current?.route == AudioRoute.EARPIECE && speaker != null -> ask(speaker.id)
                else -> emptyList()
            }
        }
        is AudioRouteInput.AudioDeactivated -> {
            audioActive = false
            pending = null
            when {
                input.callsLeft -> emptyList()
                else -> {
                    chosen = null
                    if (applied) {
                        applied = false
                        listOf(AudioRouteEffect.Release)
                    } else emptyList()
                }
            }
        }
    }

    private fun outputsChanged(currentId: String?, outputs: List<AudioOutput>): List<AudioRouteEffect> {
        val before = routes
        val current = currentId?.let { id -> outputs.firstOrNull { it.id == id } }
        routes = AudioRoutes(current, outputs)
        val newDeviceTookTheAudio = current != null && before.outputs.isNotEmpty() &&
            before.outputs.none { it.id == current.id }
        val asked = pending
        if (asked != null) {
            if (current?.id == asked) pending = null
        } else if (audioActive && chosen != null && current != null && current.id != chosen) {
            chosen = null
        }
        if (newDeviceTookTheAudio && current?.id != chosen) {
            chosen = null
            pending = null
        }
        chosen?.let { if (!maySelect(it)) chosen = null }
        return if (routes == before) emptyList() else listOf(AudioRouteEffect.RouteChanged(routes))
    }

    /** Asks the system for a listed output. */
    private fun ask(outputId: String): List<AudioRouteEffect> {
        val output = routes.outputs.firstOrNull { it.id == outputId } ?: return emptyList()
        pending = outputId
        applied = true
        return listOf(AudioRouteEffect.Apply(output))
    }
}
