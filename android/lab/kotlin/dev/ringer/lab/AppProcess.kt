package dev.ringer.lab

import org.json.JSONObject
import java.io.File
import java.net.URLClassLoader

/**
 * One run of the app's process on a hosted phone: the real SDK (`RingerPhone` and its adapters) over the Android
 * mirror, loaded by its own class loader ([AppProcessLoader]), so each process has its own statics
 * (`RingerComponents`, `FirebaseMessaging.getInstance()`) as each Android process does. Implemented in the lab's
 * app stage (`dev.ringer.lab.app.LabAppProcess`); the host sees only this interface, whose types its own class
 * loader defines. Every method may be called from any thread.
 */
interface AppProcess {
    /**
     * `onMessageReceived` for a data message: the SDK handles it, and Telecom then handles what the SDK asked
     * (ringing a call, closing one) before this returns.
     * @param name the FCM message's name (`projects/<p>/messages/<id>`), for the events.
     * @param data the data map.
     * @param priority the priority it was delivered with (`HIGH`, `NORMAL`).
     * @return true when the user saw something (a call started ringing, a ringing call closed, a notification
     *   showed): FCM's `userVisible` receipt.
     */
    fun receive(name: String, data: Map<String, String>, priority: String): Boolean

    /**
     * The user answers [callId] on the call screen (Telecom's `Connection.onAnswer`).
     * @return false when no connection of this process rings with that id.
     */
    fun answer(callId: String): Boolean

    /** The user declines [callId] (`Connection.onReject`). @return false when no such connection exists. */
    fun decline(callId: String): Boolean

    /** The user hangs up [callId] (`Connection.onDisconnect`). @return false when no such connection exists. */
    fun hangUp(callId: String): Boolean

    /**
     * A SIM call arrives and the user answers it at once so ([answer]: `hold_and_accept`, `end_and_accept`, `decline`),
     * with Telecom's rules for the app's self-managed calls: held (or disconnected when they cannot hold) and the
     * `ConnectionService`'s focus taken, to be released within 5 s; disconnected for "End & Accept".
     */
    fun simCall(answer: String)

    /** The SIM call ends; Telecom resumes no call of another `ConnectionService`. */
    fun simCallEnds()

    /**
     * The user holds or resumes [callId] with the app's own button (`CallCoordinator.setHeld`).
     * @return false when the SDK has no answered call with that id.
     */
    fun setHeld(callId: String, held: Boolean): Boolean

    /** The app's own login: `RingerPhone.logIn` with [userToken] (never logged). */
    fun logIn(userToken: String)

    /** The app's own logout: `RingerPhone.logOut`. */
    fun logOut()

    /**
     * The phone changed (app state, permissions, lock, network, Doze): the process re-reads [AppProcessSetup.state]
     * and applies it to the mirror (permissions, visibility) and its sockets (closing or reopening the event stream).
     */
    fun platformChanged()

    /** Whether its call's foreground service runs now. */
    val foregroundServiceRunning: Boolean

    /**
     * The process dies (swiped away, force-stopped, the phone off): its coroutines, sockets and Telecom thread stop
     * and Telecom drops its connections (`ended_by_system` for each that was not over); its files stay.
     */
    fun die()
}

/**
 * What an [AppProcess] is made with. Values and callbacks only of the host's class loader, so the app's class
 * loader can take them.
 *
 * @property phone the phone's name (in every event).
 * @property storage the app's `filesDir`, kept across processes.
 * @property serverUrl the Ringer server's base URL.
 * @property deviceId the app's device id for the server.
 * @property fcmToken the FCM registration token Firebase hands the app at start.
 * @property fcmProjectId the Firebase project of [fcmToken].
 * @property clock the scenario's clock: the SDK's `now` and timers run on it.
 * @property userToken the stored login at start, or null: the new process logs in with it, or logs out.
 * @property state the phone now, read at every decision (the host's own state).
 * @property userAction whether the user is acting now (answering, declining): foreground-service starts are exempt.
 * @property emit sends an event (its name and fields, without `phone`); any thread.
 * @property log writes a line to the host's log (standard error); any thread.
 * @property callUi the call UI the app creates `RingerPhone` with (`PhoneSpec.callUi`).
 */
class AppProcessSetup(
    val phone: String,
    val storage: File,
    val serverUrl: String,
    val deviceId: String,
    val fcmToken: String,
    val fcmProjectId: String,
    val clock: ScaledClock,
    val userToken: String?,
    val state: () -> PlatformState,
    val userAction: () -> Boolean,
    val emit: (String, JSONObject) -> Unit,
    val log: (String) -> Unit,
    val callUi: String = PhoneSpec.CALL_UI_CONNECTION_SERVICE
)

/**
 * Starts app processes, each in a fresh class loader over the app's classes (the lab's app stage, the SDK, the
 * mirror), parented by the host's (Kotlin, coroutines, org.json, OkHttp and the lab's host classes are shared).
 * The host's own class path must not hold the SDK: a parent-first loader would hand every process the same SDK
 * classes. `make -C android lab` writes the app's class path as the resource `app-classpath.txt` beside this class.
 *
 * @param appClasspath the app's class path entries; by default the resource's.
 * @throws IllegalStateException when no class path is given and the resource is missing.
 */
class AppProcessLoader(appClasspath: List<File>? = null) {
    private val entries: List<File> = appClasspath ?: bundledClasspath()

    /** Loads the app's classes anew and starts a process. @throws ReflectiveOperationException when they are broken. */
    fun start(setup: AppProcessSetup): AppProcess {
        val loader = URLClassLoader(entries.map { it.toURI().toURL() }.toTypedArray(), AppProcess::class.java.classLoader)
        val type = loader.loadClass(APP_PROCESS_CLASS)
        return type.getConstructor(AppProcessSetup::class.java).newInstance(setup) as AppProcess
    }

    /** Where the app's classes are. */
    companion object {
        /** The [AppProcess] the app stage implements. */
        const val APP_PROCESS_CLASS = "dev.ringer.lab.app.LabAppProcess"

        private fun bundledClasspath(): List<File> {
            val text = AppProcessLoader::class.java.getResource("app-classpath.txt")?.readText()
                ?: throw IllegalStateException("app-classpath.txt is missing beside dev.ringer.lab.AppProcessLoader: " +
                    "build with `make -C android lab`")
            return text.trim().split(File.pathSeparator).filter { it.isNotEmpty() }.map { File(it) }
        }
    }
}
