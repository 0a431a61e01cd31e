package dev.ringer.kit

/**
 * Turns [ReadinessFacts] into [ReadinessProblem] names: a pure function, so the rules are tested without a
 * phone and the platform layer only reads the facts.
 */
object ReadinessCheck {
    /**
     * How old an FCM token may be before it is reported stale: 270 days, in milliseconds. FCM expires a token
     * that has been inactive for 270 days (Firebase: "Best practices for FCM registration token management").
     */
    const val TOKEN_STALE_AFTER_MS: Long = 270L * 24 * 60 * 60 * 1000

    /**
     * The problems the facts show, in [ReadinessProblem.KNOWN] order, each once; empty when nothing would stop
     * the phone ringing. A flag that is null adds nothing.
     * @param facts what the platform read.
     * @param nowMs the phone's clock now, Unix milliseconds.
     * @return problem names, ready for [DeviceReadiness].
     */
    fun evaluate(facts: ReadinessFacts, nowMs: Long): List<String> {
        val problems = ArrayList<String>()
        if (facts.notificationsEnabled == false) problems.add(ReadinessProblem.NOTIFICATIONS_DISABLED)
        if (facts.canUseFullScreenIntent == false) problems.add(ReadinessProblem.FULL_SCREEN_INTENT_DENIED)
        if (facts.ignoringBatteryOptimizations == false) problems.add(ReadinessProblem.BATTERY_OPTIMIZED)
        val token = facts.fcmToken
        if (token == null || token.length == 0) {
            problems.add(ReadinessProblem.NO_PUSH_TOKEN)
        } else {
            val obtainedAt = facts.tokenObtainedAtMs
            if (obtainedAt != null && nowMs - obtainedAt > TOKEN_STALE_AFTER_MS) {
                problems.add(ReadinessProblem.PUSH_TOKEN_STALE)
            }
        }
        if (facts.canManageOwnCalls == false) problems.add(ReadinessProblem.CALLS_NOT_PERMITTED)
        return problems
    }
}
