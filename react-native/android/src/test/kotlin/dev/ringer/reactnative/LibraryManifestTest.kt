package dev.ringer.reactnative

import org.junit.Assert.assertEquals
import org.junit.Test
import java.io.File

/**
 * The package's Android half compiles the SDK's sources into its own module, so the SDK's own AndroidManifest.xml is
 * never merged into the app: every component and permission it declares must be declared again in the package's
 * manifest, or a React Native app lacks it (an undeclared activity cannot be started: the answer action's
 * `RingerAnswerActivity` was once missing here). The tests run from `android/` (android/Makefile).
 */
class LibraryManifestTest {
    private val sdk = File("src/main/AndroidManifest.xml").readText()
    private val reactNative = File("../react-native/android/src/main/AndroidManifest.xml").readText()

    @Test
    fun everyComponentOfTheSdksManifestIsDeclaredByThePackagesManifest() {
        val missing = components(sdk) - components(reactNative)
        assertEquals("components the package's manifest lacks", emptySet<String>(), missing)
    }

    @Test
    fun everyPermissionOfTheSdksManifestIsDeclaredByThePackagesManifest() {
        val missing = permissions(sdk) - permissions(reactNative)
        assertEquals("permissions the package's manifest lacks", emptySet<String>(), missing)
    }

    /** `kind:name` of each activity, service, receiver and provider (its `android:name`, the first attribute read). */
    private fun components(manifest: String): Set<String> =
        Regex("""<(activity|service|receiver|provider)\b[^>]*?android:name="([^"]+)"""")
            .findAll(manifest).map { "${it.groupValues[1]}:${it.groupValues[2]}" }.toSet()

    private fun permissions(manifest: String): Set<String> =
        Regex("""<uses-permission\b[^>]*?android:name="([^"]+)"""").findAll(manifest).map { it.groupValues[1] }.toSet()
}
