package dev.ringer.reactnative

import android.util.Log
import dev.ringer.android.RingerComponents
import dev.ringer.kit.FakeWebSocketTransport
import org.junit.After
import org.junit.Before
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File

/** The process's start: the library's provider creates the host and its phone before any JavaScript. */
class RingerInitProviderTest {
    private val process = MirrorProcess("ringer-rn-provider")
    private val job = process.job
    private val phone = process.phone

    @Before
    fun setUp() {
        ReactNativeRig.endProcess(null)
    }

    @After
    fun tearDown() = process.end()

    @Test
    fun theProviderCreatesTheHostWithItsPhoneAsTheProcessStarts() {
        val application = ReactNativeRig.application(phone, "http://127.0.0.1:9")
        assertTrue(RingerInitProvider().mirrorAttachInfo(application))
        val host = RingerReactHost.current ?: throw AssertionError("no host")
        val ringer = host.phone ?: throw AssertionError("no phone")
        assertEquals("http://127.0.0.1:9", ringer.server)
        assertSame("FCM's and Telecom's services reach it", ringer, RingerComponents.pushHandler)
        assertSame("one host a process", host, RingerReactHost.start(application))
    }

    @Test
    fun withoutAServerThereIsNoPhoneUntilConfigureAndTheStartNeverThrows() {
        val application = ReactNativeRig.application(phone, server = null)
        assertTrue(RingerInitProvider().mirrorAttachInfo(application))
        assertNull(RingerReactHost.current!!.phone)
        phone.packageManager.mirrorApplicationInfo.metaData.putString(ManifestSettings.SERVER, "ftp://not-http")
        ReactNativeRig.endProcess(null)
        RingerInitProvider().mirrorAttachInfo(application)
        assertNull("a server that is not http(s) is none", RingerReactHost.current!!.phone)
    }

    @Test
    fun theStoredUserIsLoggedInAtLaunchWithNoJavaScript() {
        SessionStore(File(phone.noBackupFilesDir, "ringer")).save(SessionStore.Session(ReactNativeRig.token("bob"), "bob"))
        val sockets = FakeWebSocketTransport()
        val host = ReactNativeRig.offlineHost(ReactNativeRig.application(phone, "http://127.0.0.1:9"), job, sockets)
        assertTrue(host.phone!!.registrar.status.isLoggedIn)
        val (url, headers) = sockets.nextAttempt()
        assertTrue(url, url.contains("127.0.0.1:9/v1/"))
        assertEquals("Bearer ${ReactNativeRig.token("bob")}", headers["Authorization"])
    }

    @Test
    fun theCallActivityIsTheLaunchActivityUnlessMetaDataNamesAnother() {
        val application = ReactNativeRig.application(phone, "http://127.0.0.1:9")
        assertSame(MainActivity::class.java, ManifestSettings.read(application).callActivity)
        assertEquals(7, ManifestSettings.read(application).notificationIcon)
        val meta = phone.packageManager.mirrorApplicationInfo.metaData
        meta.putString(ManifestSettings.CALL_ACTIVITY, JavaScript::class.java.name)
        meta.putInt(ManifestSettings.NOTIFICATION_ICON, 42)
        assertSame(JavaScript::class.java, ManifestSettings.read(application).callActivity)
        assertEquals(42, ManifestSettings.read(application).notificationIcon)
        assertNull(ManifestSettings.read(application).callActivityProblem)
        assertNotNull(ManifestSettings.read(application).server)
    }

    /**
     * Android expands ".CallActivity" with the namespace, not the application id: with an `applicationIdSuffix` they
     * differ (here the app is com.example.calls, its classes in dev.ringer.reactnative, as its launch activity is).
     */
    @Test
    fun aRelativeCallActivityIsFoundInTheLaunchActivitysPackageWhenTheApplicationIdDiffers() {
        val application = ReactNativeRig.application(phone, "http://127.0.0.1:9")
        phone.packageManager.mirrorApplicationInfo.metaData.putString(ManifestSettings.CALL_ACTIVITY, ".JavaScript")
        val settings = ManifestSettings.read(application)
        assertSame(JavaScript::class.java, settings.callActivity)
        assertNull(settings.callActivityProblem)
    }

    @Test
    fun aCallActivityThatCannotBeLoadedFallsBackToTheLaunchActivityAndIsLogged() {
        val application = ReactNativeRig.application(phone, "http://127.0.0.1:9")
        phone.packageManager.mirrorApplicationInfo.metaData.putString(ManifestSettings.CALL_ACTIVITY, ".NoSuchActivity")
        val settings = ManifestSettings.read(application)
        assertSame("a phone whenever there is a launch activity", MainActivity::class.java, settings.callActivity)
        val problem = settings.callActivityProblem ?: throw AssertionError("the problem is not kept")
        assertTrue(problem, problem.contains("com.example.calls.NoSuchActivity") && problem.contains(MainActivity::class.java.name))

        assertTrue(RingerInitProvider().mirrorAttachInfo(application))
        assertNotNull("the phone rings through the launch activity", RingerReactHost.current!!.phone)
        assertTrue(Log.mirrorLines.toString(), Log.mirrorLines.any { it.contains(problem) })
    }

    @Test
    fun withoutAnyLoadableCallActivityConfigureSaysWhyThereIsNoPhone() {
        val application = ReactNativeRig.application(phone, "http://127.0.0.1:9")
        phone.packageManager.mirrorLaunchIntent = null
        phone.packageManager.mirrorApplicationInfo.metaData.putString(ManifestSettings.CALL_ACTIVITY, "com.example.Gone")
        assertTrue(RingerInitProvider().mirrorAttachInfo(application))
        assertNull(RingerReactHost.current!!.phone)
        val refusal = JavaScript(application).configure().await() as FakePromise.Outcome.Rejected
        assertEquals(BridgeError.NOT_CONFIGURED, refusal.code)
        val message = refusal.message ?: ""
        assertTrue(message, message.contains("com.example.Gone") && message.contains("no launch activity"))
    }
}
