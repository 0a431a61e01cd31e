package dev.ringer.android

import android.Manifest
import android.app.NotificationManager
import android.content.ComponentName
import android.content.Context
import android.content.Intent
import android.content.pm.PackageManager
import android.os.PowerManager
import android.telecom.ConnectionRequest
import android.telecom.TelecomManager
import java.io.File
import java.nio.file.Files

/**
 * The adapter tests' phone: a `Context` over the mirror's system services that records service starts and
 * plays the system's refusals. Not a test class (no *Test.kt name); shared by the adapter tests.
 */
class MirrorPhone(val sdkInt: Int = 35) : Context() {
    val notificationManager = NotificationManager()
    val telecom = TelecomManager()
    val power = PowerManager()
    val granted = HashSet<String>(listOf(Manifest.permission.MANAGE_OWN_CALLS, Manifest.permission.RECORD_AUDIO))
    val started = ArrayList<Intent>()
    val stopped = ArrayList<Intent>()
    /** Thrown by the next startForegroundService, as Android refuses a background start. */
    var refuseForegroundStart: RuntimeException? = null
    private val files: File by lazy { Files.createTempDirectory("ringer-phone").toFile() }

    override fun getSystemService(name: String): Any? = when (name) {
        Context.NOTIFICATION_SERVICE -> notificationManager
        Context.TELECOM_SERVICE -> telecom
        Context.POWER_SERVICE -> power
        else -> null
    }

    override fun getPackageName(): String = "com.example.calls"
    override fun getApplicationContext(): Context = this
    override fun getFilesDir(): File = files
    override fun checkSelfPermission(permission: String): Int =
        if (granted.contains(permission)) PackageManager.PERMISSION_GRANTED else PackageManager.PERMISSION_DENIED

    override fun startForegroundService(service: Intent): ComponentName? {
        val refusal = refuseForegroundStart
        if (refusal != null) {
            refuseForegroundStart = null
            throw refusal
        }
        started.add(service)
        return service.component
    }

    override fun stopService(service: Intent): Boolean {
        stopped.add(service)
        return true
    }

    /** Telecom answering the last `addNewIncomingCall` through the app's ConnectionService. */
    fun telecomCreatesIncoming(service: RingerConnectionService): android.telecom.Connection {
        val extras = telecom.mirrorIncomingExtras.last()
        return service.onCreateIncomingConnection(null, ConnectionRequest(null, null, extras))
    }

    /** Telecom refusing the last `addNewIncomingCall`. */
    fun telecomRefusesIncoming(service: RingerConnectionService) {
        service.onCreateIncomingConnectionFailed(null, ConnectionRequest(null, null, telecom.mirrorIncomingExtras.last()))
    }

    /** Telecom answering the last `placeCall`. */
    fun telecomCreatesOutgoing(service: RingerConnectionService): android.telecom.Connection {
        val extras = telecom.mirrorPlacedExtras.last()
        return service.onCreateOutgoingConnection(null, ConnectionRequest(null, telecom.mirrorPlacedCalls.last(), extras))
    }

    /** Android creating CallForegroundService for the last start and delivering it; returns the service. */
    fun runForegroundService(configure: (CallForegroundService) -> Unit = {}): CallForegroundService {
        val service = CallForegroundService()
        service.mirrorAttach(this)
        configure(service)
        service.onStartCommand(started.last(), 0, started.size)
        return service
    }
}

/** The core's side of the user's actions, recorded; the test completes each answer/end when it likes. */
class RecordingActions : CallActions {
    val log = ArrayList<String>()
    val answers = LinkedHashMap<String, (Boolean) -> Unit>()
    val ends = LinkedHashMap<String, (Boolean) -> Unit>()

    override fun answer(callId: String, completion: (Boolean) -> Unit) {
        log.add("answer $callId")
        answers[callId] = completion
    }

    override fun end(callId: String, completion: (Boolean) -> Unit) {
        log.add("end $callId")
        ends[callId] = completion
    }

    override fun audioSessionActivated() { log.add("audio on") }
    override fun audioSessionDeactivated() { log.add("audio off") }
}

/** A call activity class for the notifications' intents (the app's own, in a real app). */
class TestCallActivity

/**
 * A phone with the call UI wired as `RingerPhone` wires it (notifications, Telecom, the recorded core), and
 * [RingerComponents.callUi] set; the adapter tests reset it in their `@After`.
 */
class AdapterRig(val sdkInt: Int = 35) {
    val phone = MirrorPhone(sdkInt)
    val actions = RecordingActions()
    val notifications = IncomingCallNotification(
        phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), sdkInt
    )
    val ui = TelecomCallUi(phone, phone.telecom, notifications, sdkInt)
    val service = RingerConnectionService()

    init {
        ui.attach(actions)
        RingerComponents.callUi = ui
        service.mirrorAttach(phone)
    }

    /** A reported call Telecom created: ringing. */
    fun ringing(callId: String, caller: dev.ringer.kit.Party = dev.ringer.kit.Party("alice", "Alice")): android.telecom.Connection {
        ui.reportIncomingCall(dev.ringer.kit.IncomingCallReport(callId, caller, false)) {}
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
        phone.runForegroundService { service ->
            service.mirrorSdkInt = sdkInt
            configure(service)
        }
}
