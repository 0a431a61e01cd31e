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

    /**
     * The report as a registration can carry it without the server refusing the registration (422
     * `invalid-field`): names that are not [ReadinessProblem.isWellFormed] are dropped, the rest de-duplicated,
     * at most [MAX_PROBLEMS] kept (this build's [ReadinessProblem.KNOWN] names first), and sorted. A faulty
     * report must never cost the device its registration, and so its calls.
     */
    val registrable: DeviceReadiness
        get() {
            val names = problems.filter { ReadinessProblem.isWellFormed(it) }.distinct()
            val known = ReadinessProblem.KNOWN.filter { it in names }
            val others = names.filter { it !in known }.sorted()
            return DeviceReadiness((known + others).take(MAX_PROBLEMS).sorted())
        }

    /** `{"problems":[…]}`, plus `reported_at` when set. */
    fun toJson(): JSONObject {
        val array = JSONArray()
        for (problem in problems) array.put(problem)
        return JSONObject().put("problems", array)
            .putIfSet("reported_at", reportedAtMs?.let { RingerJson.formatTimestamp(it) })
    }

    /** Reading. */
    companion object {
        /** The most problem names one report may carry, counted as sent (duplicates included), as the server caps it. */
        const val MAX_PROBLEMS = 16

        /** @throws RingerWireException when `problems` is missing or holds a non-string, or `reported_at` is bad. */
        @JvmStatic fun fromJson(json: JSONObject): DeviceReadiness {
            val what = "DeviceReadiness"
            val problems = json.stringListOrNull("problems", what) ?: throw RingerWireException("$what.problems is missing")
            return DeviceReadiness(problems, json.timestampOrNull("reported_at", what))
        }
    }
}
