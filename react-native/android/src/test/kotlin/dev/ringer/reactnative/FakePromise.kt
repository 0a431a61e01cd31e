package dev.ringer.reactnative

import com.facebook.react.bridge.Promise
import com.facebook.react.bridge.ReadableArray
import com.facebook.react.bridge.ReadableMap
import com.facebook.react.bridge.WritableMap
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * A JavaScript promise as the module sees it, recording how it was settled: resolved with a value (maps and arrays
 * read back as Java maps and lists), or rejected with a code, a message and the userInfo. Settling twice fails.
 */
class FakePromise : Promise {
    /** How a promise was settled. */
    sealed class Outcome {
        data class Resolved(val value: Any?) : Outcome()
        data class Rejected(val code: String?, val message: String?, val userInfo: Map<String, Any?>?) : Outcome()
    }

    private val settled = CountDownLatch(1)
    @Volatile private var outcome: Outcome? = null

    /** The outcome, waiting up to [timeoutMs] for it. @throws AssertionError when none came. */
    fun await(timeoutMs: Long = 8_000): Outcome {
        if (!settled.await(timeoutMs, TimeUnit.MILLISECONDS)) throw AssertionError("the promise was never settled")
        return outcome!!
    }

    /** The value it resolved with. @throws AssertionError when it was rejected. */
    fun value(): Any? = when (val settled = await()) {
        is Outcome.Resolved -> settled.value
        is Outcome.Rejected -> throw AssertionError("rejected ${settled.code}: ${settled.message}")
    }

    /** The code it was rejected with. @throws AssertionError when it resolved. */
    fun code(): String? = when (val settled = await()) {
        is Outcome.Rejected -> settled.code
        is Outcome.Resolved -> throw AssertionError("resolved with ${settled.value}")
    }

    private fun settle(with: Outcome) {
        synchronized(this) {
            if (outcome != null) throw AssertionError("settled twice: $outcome, then $with")
            outcome = with
        }
        settled.countDown()
    }

    private fun rejected(code: String?, message: String?, userInfo: WritableMap?) =
        settle(Outcome.Rejected(code, message, userInfo?.toHashMap()))

    override fun resolve(value: Any?) = settle(Outcome.Resolved(plain(value)))
    override fun reject(code: String?, message: String?) = rejected(code, message, null)
    override fun reject(code: String?, throwable: Throwable?) = rejected(code, throwable?.toString(), null)
    override fun reject(code: String?, message: String?, throwable: Throwable?) = rejected(code, message, null)
    override fun reject(throwable: Throwable?) = rejected(null, throwable?.toString(), null)
    override fun reject(throwable: Throwable?, userInfo: WritableMap?) = rejected(null, throwable?.toString(), userInfo)
    override fun reject(code: String?, userInfo: WritableMap?) = rejected(code, null, userInfo)
    override fun reject(code: String?, throwable: Throwable?, userInfo: WritableMap?) = rejected(code, throwable?.toString(), userInfo)
    override fun reject(code: String?, message: String?, userInfo: WritableMap?) = rejected(code, message, userInfo)
    override fun reject(code: String?, message: String?, throwable: Throwable?, userInfo: WritableMap?) =
        rejected(code, message, userInfo)
    @Deprecated("React Native's own: the code is EUNSPECIFIED")
    override fun reject(message: String?) = rejected("EUNSPECIFIED", message, null)

    /** Reading. */
    companion object {
        /** A value JavaScript would get, as plain Java: maps and lists. */
        fun plain(value: Any?): Any? = when (value) {
            is ReadableMap -> value.toHashMap()
            is ReadableArray -> value.toArrayList()
            else -> value
        }
    }
}
