package dev.ringer.lab.app

import android.Manifest
import android.app.NotificationManager
import android.content.ComponentName
import android.content.Context
import android.content.Intent
import android.content.pm.PackageManager
import android.os.PowerManager
import android.telecom.ConnectionRequest
import android.telecom.TelecomManager
import dev.ringer.android.CallForegroundService
import dev.ringer.android.RingerConnectionService
import java.io.File
import java.nio.file.Files

/**
 * A phone as the app's code sees it: a `Context` over the mirror's system services that records service starts and
 * plays the system's refusals. The adapter tests use it directly; the phone host's app processes
 * ([LabAppProcess]) set its switches from the lab's platform rules.
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
        foregroundStartRule?.invoke(service)?.let { throw it }
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

    /** Background services started ([startService]), in order. */
    val servicesStarted = java.util.concurrent.CopyOnWriteArrayList<Intent>()

    /**
     * Records a background service's start, or refuses it as Android 8+ does an app in the background: with no
     * visible activity and no foreground service of its own the start throws `IllegalStateException`
     * (developer.android.com, "Background Execution Limits"; the minutes of grace after leaving the foreground and
     * the temporary allowlists are not played: this phone is stricter).
     */
    override fun startService(service: Intent): ComponentName? {
        if (sdkInt >= 26 && !appVisible && !foregroundServiceRunning) {
            throw IllegalStateException("Not allowed to start service $service: app is in background")
        }
        servicesStarted.add(service)
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

    /**
     * Decides every start before [refuseForegroundStart] does: the refusal to throw, or null to allow it (the phone
     * host's background-start rule); null: every start is allowed.
     */
    @Volatile var foregroundStartRule: ((Intent) -> RuntimeException?)? = null

    /** Told after each delivered start whether the service went foreground (the phone host's events); any thread. */
    @Volatile var foregroundServiceRan: ((Intent, CallForegroundService, Boolean) -> Unit)? = null

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
        foregroundServiceRan?.invoke(intent, service, service.mirrorForegroundTypes.isNotEmpty())
        return service
    }
}
