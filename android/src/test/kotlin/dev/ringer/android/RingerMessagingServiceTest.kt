package dev.ringer.android

import com.google.firebase.messaging.RemoteMessage
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test

class RingerMessagingServiceTest {
    private class RecordingHandler : PushHandler {
        val log = ArrayList<String>()
        val data = ArrayList<Map<String, String>>()
        override fun dataMessageReceived(data: Map<String, String>) {
            log.add("data")
            this.data.add(data)
        }
        override fun tokenChanged(token: String) { log.add("token $token") }
    }

    @After fun forgetComponents() { RingerComponents.pushHandler = null }

    @Test fun dataMessageIsHandedToTheHandlerBeforeOnMessageReceivedReturns() {
        val handler = RecordingHandler()
        RingerComponents.pushHandler = handler
        val ringer = """{"v":1,"type":"ringing","call_id":"c1"}"""
        val message = RemoteMessage.Builder("fcm").addData("ringer", ringer).addData("other", "x").build()
        RingerMessagingService().onMessageReceived(message)
        assertEquals(listOf("data"), handler.log)
        assertEquals(mapOf("ringer" to ringer, "other" to "x"), handler.data.single())
    }

    @Test fun newTokenGoesToTokenChanged() {
        val handler = RecordingHandler()
        RingerComponents.pushHandler = handler
        RingerMessagingService().onNewToken("token-2")
        assertEquals(listOf("token token-2"), handler.log)
    }

    @Test fun processStartedWithoutTheFacadeDropsMessagesAndTokensWithoutACrash() {
        RingerComponents.pushHandler = null
        val service = RingerMessagingService()
        service.onMessageReceived(RemoteMessage.Builder("fcm").addData("ringer", "{}").build())
        service.onNewToken("token-3")
    }
}
