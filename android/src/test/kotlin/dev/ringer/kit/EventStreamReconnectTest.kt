package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Test

class EventStreamReconnectTest {
    private val reconnect = EventStreamReconnect(random = { 0.0 })

    private fun closed(code: Int) = EventStreamReconnect.Ending.Closed(WebSocketClose(code))
    private fun refused(status: Int) = EventStreamReconnect.Ending.Refused(status)

    @Test
    fun dropsReconnectWithTheReconnectBackoff() {
        assertEquals(EventStreamReconnect.Action.Reconnect(125, EventStream.Status.Lost(125)),
                     reconnect.decide(closed(1006), failures = 0))
        assertEquals(EventStreamReconnect.Action.Reconnect(250, EventStream.Status.Lost(250)),
                     reconnect.decide(EventStreamReconnect.Ending.Failed, failures = 1))
        assertEquals(EventStreamReconnect.Action.Reconnect(15_000, EventStream.Status.Lost(15_000)),
                     reconnect.decide(closed(1001), failures = 20))
    }

    @Test
    fun replacedAndUnauthorizedAndWrongRequestsStop() {
        assertEquals(EventStreamReconnect.Action.Stop(EventStream.Status.Replaced), reconnect.decide(closed(4001), 0))
        assertEquals(EventStreamReconnect.Action.Stop(EventStream.Status.Unauthorized), reconnect.decide(refused(401), 1))
        assertEquals(EventStreamReconnect.Action.Stop(EventStream.Status.Refused(404)), reconnect.decide(refused(404), 1))
        assertEquals(EventStreamReconnect.Action.Stop(EventStream.Status.Refused(422)), reconnect.decide(refused(422), 1))
    }

    @Test
    fun tooManySocketsRetriesSlowlyAndTimeoutsAndServerErrorsRetryNormally() {
        assertEquals(EventStreamReconnect.Action.Reconnect(2_500, EventStream.Status.Lost(2_500)),
                     reconnect.decide(refused(429), 1))
        assertEquals(EventStreamReconnect.Action.Reconnect(5_000, EventStream.Status.Lost(5_000)),
                     reconnect.decide(refused(429), 2))
        assertEquals(EventStreamReconnect.Action.Reconnect(250, EventStream.Status.Lost(250)),
                     reconnect.decide(refused(408), 1))
        assertEquals(EventStreamReconnect.Action.Reconnect(250, EventStream.Status.Lost(250)),
                     reconnect.decide(refused(503), 1))
    }

    @Test
    fun messageTooBigReconnectsWithItsOwnStatus() {
        assertEquals(EventStreamReconnect.Action.Reconnect(125, EventStream.Status.MessageTooBig(125)),
                     reconnect.decide(closed(1009), 0))
    }
}
