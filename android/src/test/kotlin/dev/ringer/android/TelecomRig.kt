package dev.ringer.android

import dev.ringer.kit.AudioOutput
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import dev.ringer.kit.PushGroup
import dev.ringer.lab.app.MirrorPhone

/** The core's side of the user's actions, recorded; the test completes each answer/end when it likes. */
class RecordingActions : CallActions {
    val log = ArrayList<String>()
    val answers = LinkedHashMap<String, (Boolean) -> Unit>()
    val ends = LinkedHashMap<String, (Boolean) -> Unit>()

    /** Makes [answer] throw, as a callback that fails (Core-Telecom then tears the call down). */
    var failAnswer = false

    override fun answer(callId: String, completion: (Boolean) -> Unit) {
        if (failAnswer) throw IllegalStateException("the answer failed")
        log.add("answer $callId")
        answers[callId] = completion
    }

    override fun end(callId: String, completion: (Boolean) -> Unit) {
        log.add("end $callId")
        ends[callId] = completion
    }

    override fun audioSessionActivated() { log.add("audio on") }
    override fun audioSessionDeactivated() { log.add("audio off") }

    /** Calls the core takes a hold or resume for; others are refused, as for a call not answered. */
    val holdable = HashSet<String>()

    override fun hold(callId: String, held: Boolean): Boolean {
        log.add("${if (held) "hold" else "resume"} $callId")
        return callId in holdable
    }

    override fun mute(callId: String, muted: Boolean): Boolean {
        log.add("${if (muted) "mute" else "unmute"} $callId")
        return true
    }

    override fun dtmf(callId: String, digits: String): Boolean {
        log.add("dtmf $digits $callId")
        return callId in holdable
    }

    /** The routes Telecom reported, in order: the current output's id and every output's id. */
    val routes = ArrayList<String>()

    override fun audioRouteChanged(current: String?, outputs: List<AudioOutput>) {
        routes.add("$current of ${outputs.joinToString(",") { it.id }}")
    }
}

/** A call activity class for the notifications' intents (the app's own, in a real app). */
class TestCallActivity


/**
 * The adapters wired as the façade wires them, on a [MirrorPhone]: [TelecomCallUi] with the notification,
 * [RingerConnectionService], and [RecordingActions] in place of the coordinator. Sets [RingerComponents.callUi];
 * tests clear it after.
 */
class TelecomRig(val sdkInt: Int = 35, hasTelecom: Boolean = true) {
    val phone = MirrorPhone(sdkInt, hasTelecom = hasTelecom)
    val actions = RecordingActions()
    val notifications = IncomingCallNotification(phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), sdkInt)
    val ui = TelecomCallUi(phone, if (hasTelecom) phone.telecom else null, notifications, sdkInt)
    val service = RingerConnectionService()
    val completions = ArrayList<Throwable?>()

    init {
        ui.attach(actions)
        RingerComponents.callUi = ui
        service.mirrorAttach(phone)
    }

    /** The core reports an incoming call. */
    fun report(callId: String, caller: Party = Party("alice", "Alice"), hasVideo: Boolean = false, group: PushGroup? = null) {
        ui.reportIncomingCall(IncomingCallReport(callId, caller, hasVideo, group)) { completions.add(it) }
    }

    /** The core reports a call and Telecom creates its connection: it rings. */
    fun ringing(callId: String, hasVideo: Boolean = false, caller: Party = Party("alice", "Alice")): android.telecom.Connection {
        report(callId, caller, hasVideo)
        return phone.telecomCreatesIncoming(service)
    }

    /** A ringing call answered and confirmed by the server: active. */
    fun active(callId: String): android.telecom.Connection {
        val connection = ringing(callId)
        connection.onAnswer()
        actions.answers.getValue(callId)(true)
        return connection
    }

    /** Android creating CallForegroundService for the last start, at this rig's API level. */
    fun runForegroundService(configure: (CallForegroundService) -> Unit = {}): CallForegroundService =
        phone.runForegroundService(configure = { service ->
            service.mirrorSdkInt = sdkInt
            configure(service)
        })
}
