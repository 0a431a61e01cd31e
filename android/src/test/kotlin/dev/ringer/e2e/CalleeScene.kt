package dev.ringer.e2e

import android.telecom.Connection
import dev.ringer.kit.EventStream
import org.junit.rules.ExternalResource

/**
 * One cluster shared by a test class's tests (`@ClassRule`): started before the first, killed after the last,
 * even when a test failed. Tests that share it use their own users ([CalleeScene]).
 * @param ringTimeoutSeconds `--ring-timeout`, or null for the server's 45 s.
 */
class SharedCluster(private val ringTimeoutSeconds: Int? = null) : ExternalResource() {
    /** The running cluster; null outside the class's run. */
    @Volatile var current: RingerCluster? = null
        private set

    override fun before() {
        current = RingerCluster.start(ringTimeoutSeconds)
    }

    override fun after() {
        current?.close()
        current = null
    }
}

/**
 * Alice calls Bob, whose Android phone has the app: logged in, registered with its FCM token, its event stream
 * connected, and then killed unless `running` (see [start]).
 */
class CalleeScene private constructor(
    /** The caller, over plain HTTP. */
    val alice: HttpUser,
    /** The callee's HTTP view (Bob's own credentials: the same user as the phone). */
    val bob: HttpUser,
    /** Bob's phone. */
    val phone: SimulatedAndroidPhone
) : java.io.Closeable {
    /** Bob's user id. */
    val bobUserId: String get() = bob.userId

    override fun close() = phone.close()

    /** Bob's app process, waiting (up to 8 s) for a message to start it when it was killed. */
    fun app(): SimulatedAndroidPhone.AppProcess =
        SimulatedAndroidPhone.poll(8_000) { phone.running } ?: throw AssertionError("no app process started on Bob's phone")

    /** Alice calls Bob and his app rings. @return the call id. */
    fun ringingCall(): String {
        val callId = alice.placeCall(bobUserId).getString("call_id")
        app().awaitState(callId, Connection.STATE_RINGING)
        return callId
    }

    /** A call Bob answered: active on his phone, accepted on the server. @return the call id. */
    fun answeredCall(): String {
        val callId = ringingCall()
        val app = app()
        app.answer(callId)
        app.awaitState(callId, Connection.STATE_ACTIVE)
        alice.awaitCallState(callId, "accepted")
        return callId
    }

    /**
     * Bob answers [callId] while the network keeps its accept on the phone; returns once the accept waits there.
     * The test releases it with `phone.network.release()`.
     */
    fun answerWithAcceptHeld(callId: String) {
        phone.network.hold { method, url -> method == "POST" && url.endsWith("/v1/calls/$callId/accept") }
        app().answer(callId)
        SimulatedAndroidPhone.poll(8_000) { if (phone.network.held.isNotEmpty()) true else null }
            ?: throw AssertionError("the answer never sent its accept")
    }

    /** Builds it. */
    companion object {
        /** A fresh Alice and Bob on [cluster]; Bob's app is left running when [running], else killed. */
        fun start(cluster: RingerCluster, running: Boolean = false): CalleeScene {
            val admin = Admin(cluster)
            val alice = admin.newUser("alice", "Alice")
            val bobId = "bob-${RingerCluster.randomHex(4)}"
            val bob = HttpUser(cluster, bobId, admin.mintToken(bobId, "Bob"))
            val phone = SimulatedAndroidPhone(cluster, bobId, bob.token)
            phone.awaitRegistered(bob)
            phone.awaitStatus("connected") { it == EventStream.Status.Connected }
            if (!running) phone.kill()
            return CalleeScene(alice, bob, phone)
        }
    }
}
