package dev.ringer.android

/**
 * Readiness problems only Android has, which the platform-neutral `ReadinessCheck` does not judge. They travel
 * in the same report (`PUT /v1/devices/{device_id}`, `readiness.problems`); the server keeps names it does not know
 * (docs/openapi.yaml, `ReadinessProblem`: an open set).
 */
object AndroidReadinessProblem {
    /**
     * The device has no Telecom (`PackageManager.FEATURE_TELECOM` absent on API 33+, `FEATURE_CONNECTION_SERVICE`
     * before: some tablets, Chromebooks and watches). Calls ring as the app's notification only: no headset, car or
     * watch can answer them, and with notifications denied they show and play nothing.
     */
    const val TELECOM_UNSUPPORTED = "telecom_unsupported"
}
