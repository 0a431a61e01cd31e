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
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import java.io.File
import java.nio.file.Files

/**
 * The adapter tests' phone: a `Context` over the mirror's system services that records service starts and
 * plays the system's refusals. Not a test class (no *Test.kt name); shared by the adapter tests.
 */
class MirrorPhone(val sdkInt: Int = 35, filesDir: File? = null, val hasTelecom: Boolean = true) : Context() {
    val telecom = TelecomManager()
    val notificationManager = NotificationManager().also {
        it.mirrorSdkInt = sdkInt
        it.mirrorInSelfManagedCall = java.util.function.BooleanSupplier { hasTelecom && telecom.mirrorIsInSelfManagedCall() }
    }
    /**
     * Whether an activity of the app is in the foreground (the user is in the app, or its call screen shows over
     * the lock screen): only then may a foreground service started now use the microphone (Android 11+).
     */
    @Volatile var appVisible = true
    val power = PowerManager()
    val granted = HashSet<String>(listOf(Manifest.permission.MANAGE_OWN_CALLS, Manifest.permission.RECORD_AUDIO))
    val started = ArrayList<Intent>()
    /** Activities started, in order. */
    val activities = ArrayList<Intent>()
    /** Thrown by the next startActivity, as on a device whose settings app lacks the page. */
    var refuseActivity: RuntimeException? = null
    val stopped = ArrayList<Intent>()
    /** Thrown by the next startForegroundService, as Android refuses a background start. */
    var refuseForegroundStart: RuntimeException? = null
    /** The app's private storage: pass the same folder to a new MirrorPhone to play a process restart. */
    private val files: File by lazy { filesDir ?: Files.createTempDirectory("ringer-phone").toFile() }

    /** The system features: Telecom's ([PackageManager.FEATURE_TELECOM], API 26-32's FEATURE_CONNECTION_SERVICE) when [hasTelecom]. */
    private val packages = object : PackageManager() {
        override fun hasSystemFeature(featureName: String): Boolean = hasTelecom &&
            (featureName == PackageManager.FEATURE_TELECOM && sdkInt >= 33 || featureName == PackageManager.FEATURE_CONNECTION_SERVICE)
    }

    override fun getPackageManager(): PackageManager = packages
    override fun mirrorAppVisible(): Boolean = appVisible

    override fun getSystemService(name: String): Any? = when (name) {
        Context.NOTIFICATION_SERVICE -> notificationManager
        // The strictest device: no TelecomManager at all without the feature.
        Context.TELECOM_SERVICE -> if (hasTelecom) telecom else null
        Context.POWER_SERVICE -> power
        else -> null
    }

    override fun startActivity(intent: Intent) {
        refuseActivity?.let { refuseActivity = null; throw it }
        activities.add(intent)
    }

    override fun getPackageName(): String = "com.example.calls"
    override fun getApplicationContext(): Context = this
    override fun getFilesDir(): File = files
    override fun checkSelfPermission(permission: String): Int =
        if (granted.contains(permission)) PackageManager.PERMISSION_GRANTED else PackageManager.PERMISSION_DENIED

    /**
     * Records the start; Android then creates the service and calls `onStartCommand`, which must call
     * `startForeground` (Android 8: "Context.startForegroundService() did not then call
     * Service.startForeground()" crashes the app otherwise). Tests deliver it with [runForegroundService]; with
     * [serviceRunner] set, each start is delivered on it, as Android does on the main thread.
     */
    override fun startForegroundService(service: Intent): ComponentName? {
        val refusal = refuseForegroundStart
        if (refusal != null) {
            refuseForegroundStart = null
            throw refusal
        }
        synchronized(this) {
            started.add(service)
            pendingForegroundStarts += 1
        }
        serviceRunner?.invoke { runForegroundService(service) }
        return service.component
    }

    /**
     * Stops the service. Stopping it while a start has not reached `startForeground` yet is the crash Android 8+
     * gives ("did not then call Service.startForeground()"): recorded in [crashes].
     */
    override fun stopService(service: Intent): Boolean {
        synchronized(this) {
            stopped.add(service)
            if (pendingForegroundStarts > 0) crashes.add("stopService before startForeground: Context.startForegroundService() did not then call Service.startForeground()")
            foregroundServiceRunning = false
            microphoneAvailable = false
        }
        return true
    }

    /** Starts Android has not delivered to the service's `startForeground` yet. */
    var pendingForegroundStarts = 0
        private set

    /** The crashes Android would have given the app (the tests expect none). */
    val crashes = java.util.concurrent.CopyOnWriteArrayList<String>()

    /** Where Android delivers each start to the service when set (the end-to-end phone); null: the test does it. */
    @Volatile var serviceRunner: ((() -> Unit) -> Unit)? = null

    /** Whether the call's foreground service is in the foreground now. */
    @Volatile var foregroundServiceRunning = false
        private set

    /** The notification the call's foreground service last went foreground with; null before any. */
    @Volatile var foregroundNotification: android.app.Notification? = null
        private set

    /**
     * Whether the app can capture from the microphone now: its call's foreground service runs and Android let it
     * use the microphone when it last went foreground ([android.app.Service.mirrorMicrophoneAllowed]).
     */
    @Volatile var microphoneAvailable = false
        private set

    /** Telecom answering the last `addNewIncomingCall` through the app's ConnectionService (and holding the call). */
    fun telecomCreatesIncoming(service: RingerConnectionService): android.telecom.Connection {
        val extras = telecom.mirrorIncomingExtras.last()
        return service.onCreateIncomingConnection(null, ConnectionRequest(null, null, extras))
            .also { telecom.mirrorConnections.add(it) }
    }

    /** Telecom refusing the last `addNewIncomingCall`. */
    fun telecomRefusesIncoming(service: RingerConnectionService) {
        service.onCreateIncomingConnectionFailed(null, ConnectionRequest(null, null, telecom.mirrorIncomingExtras.last()))
    }

    /** Telecom answering the last `placeCall`. */
    fun telecomCreatesOutgoing(service: RingerConnectionService): android.telecom.Connection {
        val extras = telecom.mirrorPlacedExtras.last()
        return service.onCreateOutgoingConnection(null, ConnectionRequest(null, telecom.mirrorPlacedCalls.last(), extras))
            .also { telecom.mirrorConnections.add(it) }
    }

    /** Android creating CallForegroundService for [intent] (the last start) and delivering it; returns the service. */
    fun runForegroundService(intent: Intent = started.last(), configure: (CallForegroundService) -> Unit = {}): CallForegroundService {
        val service = CallForegroundService()
        service.mirrorAttach(this)
        service.mirrorSdkInt = sdkInt
        configure(service)
        val refusal = service.mirrorStartForegroundFailure
        service.onStartCommand(intent, 0, started.size)
        synchronized(this) {
            pendingForegroundStarts -= 1
            val wentForeground = service.mirrorForegroundTypes.isNotEmpty()
            if (!wentForeground && refusal == null) crashes.add("onStartCommand returned without startForeground")
            foregroundServiceRunning = wentForeground && !service.mirrorStoppedSelf
            microphoneAvailable = foregroundServiceRunning && service.mirrorMicrophoneAllowed
            if (wentForeground) foregroundNotification = service.mirrorForegroundNotification
        }
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
    fun report(callId: String, caller: Party = Party("alice", "Alice"), hasVideo: Boolean = false) {
        ui.reportIncomingCall(IncomingCallReport(callId, caller, hasVideo)) { completions.add(it) }
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
