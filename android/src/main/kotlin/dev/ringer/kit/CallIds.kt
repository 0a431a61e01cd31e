package dev.ringer.kit

/**
 * Call ids as the SDK keeps them: lowercase UUID strings, also the native call UI's id (a self-managed
 * `ConnectionService` connection, CallKit's `UUID`), so one server call is one call on screen.
 */
object CallIds {
    private val uuidPattern = Regex("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

    /** True when [text] is a UUID in its 8-4-4-4-12 hex form (either case). */
    fun isUuid(text: String): Boolean = uuidPattern.matches(text)

    /** The lowercase form of [text] when it is a UUID; null otherwise. */
    fun normalize(text: String): String? = if (isUuid(text)) asciiLowercase(text) else null

    /** Lowercases ASCII letters only: locale-free, and the same on Kotlin 1.3 and 2.x. */
    fun asciiLowercase(text: String): String {
        val chars = text.toCharArray()
        for (i in chars.indices) if (chars[i] in 'A'..'Z') chars[i] = chars[i] + ('a' - 'A')
        return String(chars)
    }
}
