package dev.ringer.reactnative

import dev.ringer.android.RingerComponents
import dev.ringer.kit.FakeWebSocketTransport
import dev.ringer.lab.app.MirrorPhone
import kotlinx.coroutines.SupervisorJob
import org.junit.After
import org.junit.Before
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** The process's start: the library's provider creates the host and its phone before any JavaScript. */
class RingerInitProviderTest {
    private val job = SupervisorJob()
    private val files: File = Files.createTempDirectory("ringer-rn-provider").toFile()
    private val phone = MirrorPhone(filesDir = files)

    @Before
    fun setUp() {
        ReactNativeRig.endProcess(null)
    }

    @After
    fun tearDown() {
        job.cancel()
        ReactNativeRig.endProcess(null)
        files.deleteRecursively()
    }

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
        meta.putString(ManifestSettings.CALL_ACTIVITY, ".NoSuchActivity")
        assertNull(ManifestSettings.read(application).callActivity)
        assertNotNull(ManifestSettings.read(application).server)
    }
}
