package dev.ringer.android

import android.Manifest
import android.content.ActivityNotFoundException
import android.content.Intent
import android.telecom.Connection
import android.telecom.TelecomManager
import com.google.android.gms.tasks.Task
import com.google.firebase.messaging.FirebaseMessaging
import com.google.firebase.messaging.RemoteMessage
import dev.ringer.kit.CallBackLog
import dev.ringer.kit.CallBackRequest
import dev.ringer.kit.ReadinessProblem
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files
import dev.ringer.lab.app.MirrorPhone

/** The façade as `Application.onCreate` creates it, on the mirror phone; nobody logs in, so nothing is sent. */
class RingerPhoneTest {
    private val job = Job()
    private val files: File = Files.createTempDirectory("ringer-app").toFile()

    @After
    fun tearDown() {
        job.cancel()
        RingerComponents.callUi = null
        RingerComponents.pushHandler = null
        RingerComponents.callBacks = null
        files.deleteRecursively()
    }

    private fun create(phone: MirrorPhone, readiness: MutableList<List<String>> = ArrayList(),
                       fetchFcmToken: Boolean = false, callUiKind: CallUiKind = CallUiKind.CONNECTION_SERVICE,
                       callBacks: MutableList<CallBackRequest> = ArrayList()): RingerPhone =
        RingerPhone(phone, "http://127.0.0.1:9", CallNotificationConfig(TestCallActivity::class.java, 7),
                    scope = CoroutineScope(Dispatchers.Default + job), sdkInt = phone.sdkInt,
                    fetchFcmToken = fetchFcmToken, readinessChanged = { readiness.add(it) }, callUiKind = callUiKind,
                    callBackRequested = { callBacks.add(it) })

    /**
     * Android 16's call back from the system call log reaches the SDK's own activity: a call this phone remembers is
     * told to the app and the app's launch activity opens; any other intent, or a call not remembered, does nothing,
     * and the activity always finishes unseen.
     */
    @Test
    fun aCallBackFromTheCallLogTellsTheAppWhoAndOpensIt() {
        val phone = MirrorPhone(filesDir = files)
        val launch = Intent().setComponent(android.content.ComponentName(phone.packageName, "com.example.calls.MainActivity"))
        phone.packageManager.mirrorLaunchIntent = launch
        CallBackLog(File(phone.filesDir, "ringer/call-back-log.json")).remember("5f2a", "alice", hasVideo = true)
        val told = ArrayList<CallBackRequest>()
        val ringer = create(phone, callUiKind = CallUiKind.CORE_TELECOM, callBacks = told)
        assertEquals("the call log's call back is offered for Core-Telecom's calls",
                     android.content.pm.PackageManager.COMPONENT_ENABLED_STATE_ENABLED,
                     phone.packageManager.mirrorComponentStates[RingerCallBackActivity::class.java.name])
        fun tap(intent: Intent): RingerCallBackActivity =
            RingerCallBackActivity().also { it.setIntent(intent); it.mirrorCreate(null) }

        val callBack = Intent(TelecomManager.ACTION_CALL_BACK).putExtra(TelecomManager.EXTRA_UUID, "5f2a")
        assertEquals(CallBackRequest("alice", true), ringer.callBackRequest(callBack))
        assertTrue(tap(callBack).isFinishing)
        assertEquals(listOf(CallBackRequest("alice", true)), told)
        assertSame(launch, phone.activities.single())
        assertTrue(launch.flags and Intent.FLAG_ACTIVITY_NEW_TASK != 0)

        assertTrue(tap(Intent(TelecomManager.ACTION_CALL_BACK).putExtra(TelecomManager.EXTRA_UUID, "0000")).isFinishing)
        assertTrue(tap(Intent(TelecomManager.ACTION_CALL_BACK)).isFinishing)
        assertTrue(tap(Intent("com.example.OTHER").putExtra(TelecomManager.EXTRA_UUID, "5f2a")).isFinishing)
        assertNull(ringer.callBackRequest(null))
        assertEquals("nothing else was told or opened", 1, told.size)
        assertEquals(1, phone.activities.size)
    }

    /** Core-Telecom registers the app itself; a device without Telecom gets the call UI that works without it. */
    @Test
    fun coreTelecomIsUsedWhereTelecomIsAndTheConnectionServiceOneWhereItIsNot() {
        val connectionService = MirrorPhone(filesDir = files)
        create(connectionService)
        assertEquals("no call back (the manifest's disabled state) for the ConnectionService's calls",
                     android.content.pm.PackageManager.COMPONENT_ENABLED_STATE_DEFAULT,
                     connectionService.packageManager.mirrorComponentStates[RingerCallBackActivity::class.java.name])
        val phone = MirrorPhone(filesDir = files)
        val ringer = create(phone, callUiKind = CallUiKind.CORE_TELECOM)
        assertTrue(ringer.callUi is CoreTelecomCallUi)
        assertSame(ringer.callUi, RingerComponents.callUi)
        assertNull("no ConnectionService call UI for Telecom's binding", RingerComponents.telecomCallUi)
        assertTrue("Core-Telecom registers its own phone account", phone.telecom.mirrorRegistered.isEmpty())

        val noTelecom = create(MirrorPhone(filesDir = files, hasTelecom = false), callUiKind = CallUiKind.CORE_TELECOM)
        assertTrue(noTelecom.callUi is TelecomCallUi)
        assertFalse(noTelecom.callUi.telecomAvailable)
    }

    @Test
    fun creatingItRegistersTheSelfManagedAccountAndMakesItReachableFromAndroidsComponents() {
        val phone = MirrorPhone(filesDir = files)
        val ringer = create(phone)
        assertEquals(1, phone.telecom.mirrorRegistered.size)
        assertSame(ringer.callUi, RingerComponents.callUi)
        assertSame(ringer, RingerComponents.pushHandler)
        assertEquals("the device id survives a process restart", ringer.deviceId, create(MirrorPhone(filesDir = files)).deviceId)
    }

    /**
     * Auto Backup restores `filesDir` onto a new phone, never `noBackupFilesDir`: the id kept there makes a restored
     * phone a new device, and the id an earlier version kept in `filesDir/ringer/` moves, the same id, so this phone's
     * registration stays its own.
     */
    @Test
    fun theInstallationIdIsKeptOutOfBackupsAndAnIdAtTheOldPathMovesThereUnchanged() {
        val phone = MirrorPhone(filesDir = files)
        val old = File(phone.filesDir, "ringer/installation-id")
        old.parentFile.mkdirs()
        old.writeText("9f0c2a9e-0000-4000-8000-0000000000aa")
        val ringer = create(phone)
        assertEquals("the same device to the server", "9f0c2a9e-0000-4000-8000-0000000000aa", ringer.deviceId)
        val kept = File(phone.noBackupFilesDir, "ringer/installation-id")
        assertEquals(ringer.deviceId, kept.readText())
        assertFalse("nothing left for a backup to carry", old.exists())
        assertEquals(ringer.deviceId, RingerPhone.installationId(phone))

        val restored = MirrorPhone(filesDir = Files.createTempDirectory("ringer-restored").toFile())
        try {
            // What Auto Backup carries: filesDir, not noBackupFilesDir.
            files.copyRecursively(restored.filesDir, overwrite = true)
            restored.noBackupFilesDir.deleteRecursively()
            assertTrue(RingerPhone.installationId(restored) != ringer.deviceId)
        } finally {
            restored.filesDir.deleteRecursively()
        }
    }

    /** Issue 27: a tablet, Chromebook or watch without Telecom must not crash at launch, and says why calls differ. */
    @Test
    fun aDeviceWithoutTelecomStartsRingsAsANotificationAndSaysSoInItsReadiness() {
        for (sdk in listOf(30, 34)) {
            val phone = MirrorPhone(sdkInt = sdk, filesDir = files, hasTelecom = false)
            phone.power.mirrorIgnoringOptimizations.add(phone.packageName)
            val seen = ArrayList<List<String>>()
            val ringer = create(phone, seen)
            assertFalse(ringer.callUi.telecomAvailable)
            assertEquals("$sdk", listOf(ReadinessProblem.NO_PUSH_TOKEN, AndroidReadinessProblem.TELECOM_UNSUPPORTED), seen.last())
            assertTrue(ringer.registrar.toString(), ringer.refreshReadiness().contains(AndroidReadinessProblem.TELECOM_UNSUPPORTED))
            ringer.callUi.reportIncomingCall(dev.ringer.kit.IncomingCallReport("c1", dev.ringer.kit.Party("alice", "Alice"), false)) {}
            assertTrue("$sdk: the call's notification shows", phone.notificationManager.mirrorShowing.containsKey("c1/${IncomingCallNotification.NOTIFICATION_ID}"))
            RingerComponents.callUi = null
        }
    }

    /** Issue 27: readiness says the full-screen permission is missing; the SDK opens the page that grants it. */
    @Test
    fun aMissingFullScreenPermissionOpensItsSettingsPageOnAndroid14() {
        val phone = MirrorPhone(sdkInt = 34, filesDir = files)
        phone.notificationManager.mirrorCanUseFullScreenIntent = false
        val ringer = create(phone)
        assertTrue(ringer.refreshReadiness().contains(ReadinessProblem.FULL_SCREEN_INTENT_DENIED))
        assertTrue(ringer.openFullScreenIntentSettings())
        val opened = phone.activities.single()
        assertEquals("android.settings.MANAGE_APP_USE_FULL_SCREEN_INTENT", opened.action)
        assertEquals("package:com.example.calls", opened.data.toString())
        assertTrue("started outside an activity", opened.flags and Intent.FLAG_ACTIVITY_NEW_TASK != 0)
        // A settings app without the page: nothing opens, and the app is told so.
        phone.refuseActivity = IllegalStateException("ActivityNotFoundException")
        assertFalse(ringer.openFullScreenIntentSettings())
    }

    /** Each readiness problem the user can fix opens its page; the others, and a device without the page, open none. */
    @Test
    fun openSettingsOpensTheNotificationAndBatteryPagesAndNothingForOtherProblems() {
        val phone = MirrorPhone(sdkInt = 34, filesDir = files)
        val ringer = create(phone)
        assertTrue(ringer.openSettings(ReadinessProblem.NOTIFICATIONS_DISABLED))
        val notifications = phone.activities.last()
        assertEquals("android.settings.APP_NOTIFICATION_SETTINGS", notifications.action)
        assertEquals("com.example.calls", notifications.getStringExtra("android.provider.extra.APP_PACKAGE"))
        assertTrue(ringer.openSettings(ReadinessProblem.BATTERY_OPTIMIZED))
        assertEquals("the list, not the REQUEST_ form Play restricts",
                     "android.settings.IGNORE_BATTERY_OPTIMIZATION_SETTINGS", phone.activities.last().action)
        assertTrue(ringer.openSettings(ReadinessProblem.FULL_SCREEN_INTENT_DENIED))
        assertEquals("android.settings.MANAGE_APP_USE_FULL_SCREEN_INTENT", phone.activities.last().action)
        assertTrue("started outside an activity", phone.activities.all { it.flags and Intent.FLAG_ACTIVITY_NEW_TASK != 0 })
        for (other in listOf(ReadinessProblem.NO_PUSH_TOKEN, ReadinessProblem.CALLS_NOT_PERMITTED, "no_such_problem")) {
            assertFalse(other, ringer.openSettings(other))
        }
        assertEquals(3, phone.activities.size)
        phone.refuseActivity = ActivityNotFoundException("no battery page")
        assertFalse(ringer.openSettings(ReadinessProblem.BATTERY_OPTIMIZED))
        phone.refuseActivity = ActivityNotFoundException("no notification page")
        assertFalse(ringer.openSettings(ReadinessProblem.NOTIFICATIONS_DISABLED))
        assertEquals(3, phone.activities.size)
    }

    @Test
    fun belowAndroid14ThereIsNoFullScreenPageToOpen() {
        val phone = MirrorPhone(sdkInt = 33, filesDir = files)
        assertFalse(create(phone).openFullScreenIntentSettings())
        assertTrue(phone.activities.isEmpty())
    }

    @Test
    fun readinessBeforeAnyTokenSaysNoPushTokenAndATokenClearsIt() {
        val phone = MirrorPhone(filesDir = files)
        phone.power.mirrorIgnoringOptimizations.add(phone.packageName)
        val seen = ArrayList<List<String>>()
        val ringer = create(phone, seen)
        assertEquals(listOf(listOf(ReadinessProblem.NO_PUSH_TOKEN)), seen)
        ringer.tokenChanged("fcm-token-1")
        assertEquals(listOf<String>(), seen.last())
        assertEquals(listOf<String>(), ringer.registrar.status.readiness?.problems)
        assertTrue(ringer.registrar.status.hasFcmToken)
        ringer.refreshReadiness()
        assertEquals("the same facts again report nothing new", 2, seen.size)
    }

    @Test
    fun readinessNamesEveryReasonTheApiLevelHas() {
        val phone = MirrorPhone(sdkInt = 34, filesDir = files)
        phone.notificationManager.mirrorNotificationsEnabled = false
        phone.notificationManager.mirrorCanUseFullScreenIntent = false
        phone.granted.remove(Manifest.permission.MANAGE_OWN_CALLS)
        val ringer = create(phone)
        ringer.tokenChanged("fcm-token-1")
        assertEquals(listOf(ReadinessProblem.NOTIFICATIONS_DISABLED, ReadinessProblem.FULL_SCREEN_INTENT_DENIED,
                            ReadinessProblem.BATTERY_OPTIMIZED, ReadinessProblem.CALLS_NOT_PERMITTED),
                     ringer.refreshReadiness())
    }

    @Test
    fun theFullScreenIntentIsNotAProblemBeforeAndroid14() {
        val phone = MirrorPhone(sdkInt = 33, filesDir = files)
        phone.notificationManager.mirrorCanUseFullScreenIntent = false
        phone.power.mirrorIgnoringOptimizations.add(phone.packageName)
        val ringer = create(phone)
        ringer.tokenChanged("fcm-token-1")
        assertEquals(listOf<String>(), ringer.refreshReadiness())
    }

    @Test
    fun theTokenFirebaseHoldsAtStartIsTakenWithoutWaitingForOnNewToken() {
        val task = Task<String>()
        FirebaseMessaging.getInstance().mirrorSetTokenTask(task)
        val ringer = create(MirrorPhone(filesDir = files), fetchFcmToken = true)
        assertTrue(!ringer.registrar.status.hasFcmToken)
        task.mirrorSucceed("fcm-token-from-getToken")
        assertTrue(ringer.registrar.status.hasFcmToken)
        FirebaseMessaging.getInstance().mirrorSetTokenTask(Task())
    }

    @Test
    fun theCallActivitysIntentsGiveTheCallIdAndTheAnswerIntentAnswersIt() {
        val phone = MirrorPhone(filesDir = files)
        val ringer = create(phone)
        val callId = "4f0c2a9e-0000-4000-8000-000000000001"
        val data = mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"$callId\"," +
            "\"caller\":{\"id\":\"alice\",\"name\":\"Alice\"},\"has_video\":false," +
            "\"sent_at\":${System.currentTimeMillis()},\"expires_at\":${System.currentTimeMillis() + 30_000}}")
        RingerMessagingService().onMessageReceived(RemoteMessage.Builder("sender@fcm.googleapis.com").setData(data).build())
        val service = RingerConnectionService()
        service.mirrorAttach(phone)
        val connection = phone.telecomCreatesIncoming(service)
        assertEquals(Connection.STATE_RINGING, connection.state)

        val show = Intent(RingerIntents.ACTION_SHOW_INCOMING_CALL).putExtra(RingerIntents.EXTRA_CALL_ID, callId)
        assertEquals(callId, ringer.handleCallIntent(show))
        assertEquals(Connection.STATE_RINGING, connection.state)
        assertNull(ringer.handleCallIntent(Intent("com.example.OTHER").putExtra(RingerIntents.EXTRA_CALL_ID, callId)))
        assertNull(ringer.handleCallIntent(null))

        val answer = Intent(RingerIntents.ACTION_ANSWER).putExtra(RingerIntents.EXTRA_CALL_ID, callId)
        assertEquals(callId, ringer.handleCallIntent(answer))
        // Answering started the call's foreground service; the Connection waits for the server (nobody logged in
        // here, so the answer waits for login) and does not go active on its own.
        assertEquals(1, phone.started.size)
        assertEquals(Connection.STATE_RINGING, connection.state)
    }

    @Test
    fun anIntentForACallThatIsOverShowsNoCallScreen() {
        val phone = MirrorPhone(filesDir = files)
        val ringer = create(phone)
        // After process death the ongoing notification, or Recents, can hand the activity an old call's intent.
        for (action in listOf(RingerIntents.ACTION_ANSWER, RingerIntents.ACTION_SHOW_INCOMING_CALL)) {
            val intent = Intent(action).putExtra(RingerIntents.EXTRA_CALL_ID, "9f0c2a9e-0000-4000-8000-00000000000c")
            assertNull(action, ringer.handleCallIntent(intent))
        }
        assertTrue("nothing answered, no service started", phone.started.isEmpty())
    }
}
