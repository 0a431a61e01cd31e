package dev.ringer.reactnative

import dev.ringer.android.CallUiKind
import dev.ringer.kit.CallBackRequest
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File

/** What the app's manifest chooses for the native half (the Expo plugin's meta-data): here, the call UI. */
class ManifestSettingsTest {
    private val process = MirrorProcess("ringer-rn-manifest")
    private val phone = process.phone
    private val application = ReactNativeRig.application(phone, HeadlessTaskTest.SERVER)

    @After
    fun tearDown() = process.end()

    @Test
    fun theCallUiIsCoreTelecomOnlyWhenTheMetaDataSaysSo() {
        assertEquals(CallUiKind.CONNECTION_SERVICE, ManifestSettings.read(application).callUiKind)
        val meta = phone.packageManager.mirrorApplicationInfo.metaData
        meta.putString(ManifestSettings.CALL_UI, "core_telecom")
        assertEquals(CallUiKind.CORE_TELECOM, ManifestSettings.read(application).callUiKind)
        meta.putString(ManifestSettings.CALL_UI, "connection_service")
        assertEquals(CallUiKind.CONNECTION_SERVICE, ManifestSettings.read(application).callUiKind)
        meta.putString(ManifestSettings.CALL_UI, "callkit")
        assertEquals("an unknown value is the SDK's default", CallUiKind.CONNECTION_SERVICE, ManifestSettings.read(application).callUiKind)
    }

    @Test
    fun theHostMakesThePhoneWithTheManifestsCallUi() {
        phone.packageManager.mirrorApplicationInfo.metaData.putString(ManifestSettings.CALL_UI, "core_telecom")
        SessionStore(File(phone.noBackupFilesDir, "ringer")).save(SessionStore.Session(ReactNativeRig.token("bob"), "bob"))
        var made: CallUiKind? = null
        ReactNativeRig.offlineHost(application, process.job) { setup -> made = setup.callUiKind }
        assertEquals(CallUiKind.CORE_TELECOM, made)
    }

    /** A call back from the system call log (the SDK's `callBackRequested`) reaches JavaScript, kept until it attaches. */
    @Test
    fun aCallBackFromTheCallLogIsACallBackRequestedEvent() {
        var setup: RingerReactHost.PhoneSetup? = null
        val host = ReactNativeRig.offlineHost(application, process.job) { setup = it }
        setup!!.callBackRequested(CallBackRequest("carol", true))
        val replay = host.attach {}.toString()
        assertTrue(replay, replay.contains("\"type\":\"callBackRequested\"") && replay.contains("\"userId\":\"carol\""))
    }
}
