package dev.ringer.reactnative

import org.json.JSONObject
import java.util.ArrayDeque

/**
 * Holds the events JavaScript cannot take yet, as TestVectors/react-native/relay.json pins it (Swift: `EventRelay` in
 * react-native/ios; the same rules). While no JavaScript instance is attached it keeps the newest [capacity] events,
 * counting those it drops; the first [attach] of each instance hands them over once, after an `eventsDropped` event
 * when it dropped any; while attached every event goes out at once. An `audioRouteChanged` is a state, not a story: a
 * newer one takes the place of the one kept. [detach] is the module being invalidated (a JavaScript reload, the React
 * host destroyed while the process lives on).
 *
 * It is also why the module never emits before JavaScript looked it up: codegen's `emitOnEvent` calls the emitter
 * callback without a null check, and only a JavaScript call (getInitialEvents) attaches. Pure: no I/O. Not
 * thread-safe: the owner serialises calls (RingerReactHost does, under its lock).
 * @param capacity how many events it keeps while detached; 200 in the app.
 */
class EventRelay(val capacity: Int = DEFAULT_CAPACITY) {
    private val kept = ArrayDeque<JSONObject>()
    private var dropped = 0

    init {
        require(capacity > 0) { "capacity must be positive" }
    }

    /** Whether a JavaScript instance is attached: its events go out at once. */
    var isAttached: Boolean = false
        private set

    /**
     * An event happened.
     * @return the event to emit now, when attached; null when it was kept for the next [attach].
     */
    fun offer(event: JSONObject): JSONObject? {
        if (isAttached) return event
        // The audio route is a state, not a story: the newest takes the kept one's place (relay.json).
        if (event.optString("type") == AUDIO_ROUTE_CHANGED) kept.removeAll { it.optString("type") == AUDIO_ROUTE_CHANGED }
        if (kept.size == capacity) {
            kept.removeFirst()
            dropped += 1
        }
        kept.addLast(event)
        return null
    }

    /**
     * A JavaScript instance asks for what it missed (getInitialEvents): the kept events, oldest first, after
     * `{"type": "eventsDropped", "count": n}` when some were dropped; then it is attached. Empty for an instance
     * already attached: each gets them once.
     */
    fun attach(): List<JSONObject> {
        if (isAttached) return emptyList()
        isAttached = true
        val replay = ArrayList<JSONObject>(kept.size + 1)
        if (dropped > 0) replay.add(JSONObject().put("type", "eventsDropped").put("count", dropped))
        replay.addAll(kept)
        kept.clear()
        dropped = 0
        return replay
    }

    /** The attached JavaScript instance went away: events are kept again until the next [attach]. */
    fun detach() {
        isAttached = false
    }

    /** The buffer's size in the app. */
    companion object {
        /** Events kept while JavaScript is not attached: a ringing call and its end make a handful. */
        const val DEFAULT_CAPACITY = 200

        private const val AUDIO_ROUTE_CHANGED = "audioRouteChanged"
    }
}
