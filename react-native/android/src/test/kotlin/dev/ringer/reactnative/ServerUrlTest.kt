package dev.ringer.reactnative

import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/** The iOS half's rule for one server (RingerReactNative.sameServer), so both platforms keep a login alike. */
class ServerUrlTest {
    @Test
    fun spellingsThatDifferInCaseDefaultPortOrTrailingSlashAreOneServer() {
        val same = listOf(
            "https://ringer.example.com" to "https://ringer.example.com/",
            "https://ringer.example.com" to "HTTPS://Ringer.Example.COM",
            "https://ringer.example.com" to "https://ringer.example.com:443/",
            "http://ringer.example.com" to "http://ringer.example.com:80",
            "http://127.0.0.1:9" to "http://127.0.0.1:9/",
            "https://example.com/ringer" to "https://EXAMPLE.com:443/ringer/",
            "https://ringer.example.com" to "https://ringer.example.com?from=app")
        for ((a, b) in same) {
            assertTrue("$a ~ $b", ServerUrl.same(a, b))
            assertTrue("$b ~ $a", ServerUrl.same(b, a))
        }
    }

    @Test
    fun anotherSchemePortHostOrPathIsAnotherServer() {
        val different = listOf(
            "https://ringer.example.com" to "http://ringer.example.com",
            "http://ringer.example.com" to "http://ringer.example.com:443",
            "https://ringer.example.com" to "https://ringer.example.com:80",
            "https://ringer.example.com" to "https://ringer.example.com:8443",
            "https://ringer.example.com" to "https://staging.example.com",
            "https://example.com/ringer" to "https://example.com/Ringer",
            "https://example.com/ringer" to "https://example.com")
        for ((a, b) in different) {
            assertFalse("$a !~ $b", ServerUrl.same(a, b))
            assertFalse("$b !~ $a", ServerUrl.same(b, a))
        }
    }

    @Test
    fun textThatIsNoUrlWithAHostIsComparedAsWrittenLessTrailingSlashes() {
        assertTrue(ServerUrl.same("not a url/", "not a url"))
        assertFalse(ServerUrl.same("not a url", "Not a url"))
        assertFalse(ServerUrl.same("https://ringer.example.com", "ringer.example.com"))
    }
}
