package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject

/**
 * What a phone reported would stop it ringing, and when the server heard it.
 *
 * Sent in `PUT /v1/devices/{device_id}` as `{"problems":[…]}`; returned on the stored device as
 * `{"problems":[…],"reported_at":"…"}`. An empty [problems] means the phone checked and found nothing.
 *
 * @property problems [ReadinessProblem] names (an open vocabulary: unknown names are kept as they are).
 * @property reportedAtMs when the server stored the report (server clock), Unix milliseconds; null in a
 *   registration, which the server stamps itself.
 */
data class DeviceReadiness(val problems: List<String>, val reportedAtMs: Long? = null) {
    /**
     * The problems as the server keeps them: each once, sorted by name, so two reports of the same problems
     * compare equal whatever order a phone listed them in.
     */
    val normalizedProblems: List<String> get() = problems.distinct().sorted()

    /** `{"problems":[…]}`, plus `reported_at` when set. */
    fun toJson(): JSONObject {
        val array = JSONArray()
        for (problem in problems) array.put(problem)
        return JSONObject().put("problems", array)
            .putIfSet("reported_at", reportedAtMs?.let { RingerJson.formatTimestamp(it) })
    }

    /** Reading. */
    companion object {
        /** The most problems one report may carry (after duplicates are dropped), as the server caps it. */
        const val MAX_PROBLEMS = 16

        /** @throws RingerWireException when `problems` is missing or holds a non-string, or `reported_at` is bad. */
        @JvmStatic fun fromJson(json: JSONObject): DeviceReadiness {
            val what = "DeviceReadiness"
            val array = json.arrayOrNull("problems", what) ?: throw RingerWireException("$what.problems is missing")
            val problems = (0 until array.length()).map { index ->
                array.opt(index) as? String ?: throw RingerWireException("$what.problems[$index] is not a string")
            }
            return DeviceReadiness(problems, json.timestampOrNull("reported_at", what))
        }
    }
}
