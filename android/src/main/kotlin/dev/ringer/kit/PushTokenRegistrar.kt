package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * Keeps this install's device registration on the server (`PUT`/`DELETE /v1/devices/{id}`) in step with its FCM
 * token, its readiness report and its logged-in user, whatever order Firebase and the app deliver them in:
 *
 * - **Never without a user**: a token that arrives before login is kept and sent right after [logIn]; with
 *   nobody logged in nothing is sent.
 * - **Rotation**: a changed token (`FirebaseMessagingService.onNewToken`) re-registers the device; an
 *   invalidated one ([invalidateToken]) unregisters it, as the server keeps no token-less device.
 * - **Readiness**: once the app reported what would stop the phone ringing ([setReadiness]), every
 *   registration carries it, and a changed report re-registers (after login, like a token).
 * - **Logout**: [logOut] unregisters the device with the user's own credentials; the user is forgotten only
 *   once the server acknowledged (or refused) the `DELETE`.
 * - **One request at a time**, each computed from the newest state, so intermediate tokens are coalesced away.
 * - **Transient failures** ([RingerApiException.isRetryable]) are retried with [Backoff] while the state being
 *   reached is still wanted; a change during the wait retries at once with the new state.
 *
 * Thread-safe: every method may be called from any thread (Firebase's service thread, the main thread).
 *
 * @param deviceId the app-chosen stable id of this install.
 * @param scope where requests run (e.g. the app's process-wide scope).
 * @param fcmProjectId the Firebase project of the token when the server sends through several; null for its default.
 * @param backoff the retry policy; by default 0.5…1 s before the first retry, doubling, at most 60 s.
 * @param random a number in `0..1` for the backoff's jitter.
 * @param now the clock retry waits are measured on, Unix milliseconds.
 * @param sleepUntil suspends until [now] reads at least the given time; cancelled when the wanted state changes.
 * @param observer receives every [PushTokenRegistrarObservation].
 */
class PushTokenRegistrar(
    val deviceId: String,
    private val scope: CoroutineScope,
    private val fcmProjectId: String? = null,
    private val backoff: Backoff = DEFAULT_BACKOFF,
    private val random: () -> Double = { Math.random() },
    private val now: () -> Long = { System.currentTimeMillis() },
    private val sleepUntil: suspend (Long) -> Unit = { until -> delay(until - now()) },
    private val observer: (PushTokenRegistrarObservation) -> Unit = {}
) {
    /** What the server should hold for the current login session. */
    private sealed class Goal {
        data class Register(val session: Int, val token: String, val readiness: DeviceReadiness?) : Goal()
        data class Unregister(val session: Int) : Goal()
    }

    private sealed class Step {
        class Logout(val id: Int, val api: RingerApiClient) : Step()
        class Reach(val goal: Goal, val api: RingerApiClient) : Step()
    }

    private class PendingLogout(val id: Int, val api: RingerApiClient)

    private val lock = Any()
    private var token: String? = null
    private var readiness: DeviceReadiness? = null
    private var api: RingerApiClient? = null
    /** Bumped on every login and logout, so an answer for an old session changes nothing. */
    private var session = 0
    private var nextLogoutId = 0
    /** Logged-out users whose `DELETE` is not acknowledged yet, oldest first. */
    private val logouts = ArrayList<PendingLogout>()
    private var acknowledged: Goal? = null
    /** A goal the server refused: not tried again until the wanted state changes. */
    private var refused: Goal? = null
    private var device: Device? = null
    private var running = false
    private var waiting: Pair<Job, Step>? = null
    private val idleWaiters = ArrayList<CompletableDeferred<Unit>>()

    /**
     * Records the FCM token Firebase delivered (first issue, or rotation in `onNewToken`); the same token again
     * is a no-op, an empty one counts as [invalidateToken].
     */
    fun setToken(token: String) = change { this.token = if (token.length == 0) null else token }

    /** Drops the token (e.g. after `FirebaseMessaging.deleteToken()`): the device is unregistered. */
    fun invalidateToken() = change { token = null }

    /**
     * Records what the app found would stop this phone ringing ([ReadinessCheck.evaluate]): sent with every
     * registration from now on; a report that differs from the last one re-registers the device, after login
     * only. The same problems again, in any order, send nothing. Its `reportedAtMs` is ignored (the server
     * stamps its own), and it is made [DeviceReadiness.registrable], so the server never refuses the
     * registration for its report.
     */
    fun setReadiness(readiness: DeviceReadiness) = change {
        this.readiness = readiness.registrable
    }

    /**
     * Starts a login session: the token held is registered for this user. Calling it again (a refreshed user
     * token) re-registers with the new client without unregistering.
     * @param api the user's client; its credentials are used for every request of this session, the `DELETE`
     *   at logout included.
     */
    fun logIn(api: RingerApiClient) = change {
        this.api = api
        session += 1
        device = null
    }

    /**
     * Ends the login session: the device is unregistered with this user's credentials (retried until
     * acknowledged). The token is kept and registered again at the next login. No-op when nobody is logged in.
     */
    fun logOut() = change {
        val current = api
        if (current != null) {
            logouts.add(PendingLogout(nextLogoutId, current))
            nextLogoutId += 1
            api = null
            session += 1
        }
    }

    /** The current state. */
    val status: PushTokenRegistrarStatus
        get() = synchronized(lock) {
            PushTokenRegistrarStatus(api != null, token != null, readiness, device, running)
        }

    /**
     * Returns once no request is in flight or waiting to be retried (tests, or an app holding a background job
     * until logout reached the server). Never returns while a transient failure keeps being retried.
     */
    suspend fun waitUntilIdle() {
        val waiter = synchronized(lock) {
            if (!running) return
            CompletableDeferred<Unit>().also { idleWaiters.add(it) }
        }
        waiter.await()
    }

    /** The device id only. */
    override fun toString(): String = "PushTokenRegistrar(deviceId=$deviceId)"

    // Work

    /** Applies a change, starts the worker if there is work, and cuts short a wait whose request is no longer wanted. */
    private fun change(body: () -> Unit) {
        var stale: Job? = null
        val start = synchronized(lock) {
            body()
            val current = waiting
            if (current != null && !isWanted(current.second)) {
                stale = current.first
                waiting = null
            }
            if (running || nextStep() == null) return@synchronized false
            running = true
            true
        }
        stale?.cancel()
        if (start) scope.launch { work() }
    }

    private suspend fun work() {
        while (true) {
            var waiters: List<CompletableDeferred<Unit>> = emptyList()
            val step = synchronized(lock) {
                val next = nextStep()
                if (next == null) {
                    running = false
                    waiters = ArrayList(idleWaiters)
                    idleWaiters.clear()
                }
                next
            }
            if (step == null) {
                waiters.forEach { it.complete(Unit) }
                return
            }
            perform(step)
        }
    }

    /** Makes one step's request, retrying transient failures while the step is wanted. */
    private suspend fun perform(step: Step) {
        var retry = 0
        while (true) {
            try {
                observer(send(step))
                return
            } catch (e: CancellationException) {
                throw e
            } catch (e: RingerApiException) {
                if (!e.isRetryable) {
                    refuse(step, e.detail)
                    return
                }
                retry += 1
                val delayMs = backoff.delayMs(retry, random())
                val sleeper = synchronized(lock) {
                    if (!isWanted(step)) return
                    val job = scope.launch(start = CoroutineStart.LAZY) {
                        try {
                            sleepUntil(now() + delayMs)
                        } catch (cancelled: CancellationException) {
                        }
                    }
                    waiting = Pair(job, step)
                    job
                }
                observer(PushTokenRegistrarObservation.Retrying(retry, delayMs, e.detail))
                sleeper.start()
                sleeper.join()
                val wanted = synchronized(lock) {
                    if (waiting?.first === sleeper) waiting = null
                    isWanted(step)
                }
                if (!wanted) return
            } catch (e: Exception) {
                refuse(step, "${e.javaClass.simpleName}: ${e.message}")
                return
            }
        }
    }

    private fun refuse(step: Step, detail: String) {
        synchronized(lock) {
            when (step) {
                is Step.Logout -> logouts.removeAll { it.id == step.id }
                is Step.Reach -> refused = step.goal
            }
        }
        observer(PushTokenRegistrarObservation.Failed(detail))
    }

    /** Sends one request and records the acknowledgement. */
    private suspend fun send(step: Step): PushTokenRegistrarObservation {
        when (step) {
            is Step.Logout -> {
                step.api.unregisterDevice(deviceId)
                synchronized(lock) {
                    logouts.removeAll { it.id == step.id }
                    if (api == null) device = null
                }
                return PushTokenRegistrarObservation.Unregistered(deviceId)
            }
            is Step.Reach -> {
                val goal = step.goal
                when (goal) {
                    is Goal.Register -> {
                        val registration = DeviceRegistration(platform = Platform.ANDROID, fcmToken = goal.token,
                                                              fcmProjectId = fcmProjectId, readiness = goal.readiness)
                        val stored = step.api.registerDevice(deviceId, registration)
                        synchronized(lock) {
                            if (session == goal.session) {
                                acknowledged = goal
                                device = stored
                            }
                        }
                        return PushTokenRegistrarObservation.Registered(stored)
                    }
                    is Goal.Unregister -> {
                        step.api.unregisterDevice(deviceId)
                        synchronized(lock) {
                            if (session == goal.session) {
                                acknowledged = goal
                                device = null
                            }
                        }
                        return PushTokenRegistrarObservation.Unregistered(deviceId)
                    }
                }
            }
        }
    }

    // Decisions (called with the lock held)

    /** Pending logouts first, in order; then the current user's goal unless reached or refused. */
    private fun nextStep(): Step? {
        val logout = logouts.firstOrNull()
        if (logout != null) return Step.Logout(logout.id, logout.api)
        val current = api ?: return null
        val goal = wantedGoal() ?: return null
        if (goal == acknowledged || goal == refused) return null
        return Step.Reach(goal, current)
    }

    private fun wantedGoal(): Goal? {
        if (api == null) return null
        val held = token
        if (held != null) return Goal.Register(session, held, readiness)
        // Nothing left to register: remove what this session registered (the server drops token-less devices).
        val reached = acknowledged
        if (reached is Goal.Register && reached.session == session) return Goal.Unregister(session)
        return null
    }

    private fun isWanted(step: Step): Boolean = when (step) {
        is Step.Logout -> logouts.any { it.id == step.id }
        is Step.Reach -> wantedGoal() == step.goal
    }

    /** The default retry policy. */
    companion object {
        /** 0.5…1 s before the first retry, doubling, at most 60 s. */
        @JvmField val DEFAULT_BACKOFF = Backoff(initialDelayMs = 1_000, maximumDelayMs = 60_000)
    }
}
