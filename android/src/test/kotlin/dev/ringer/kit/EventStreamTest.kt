package dev.ringer.kit

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.IOException
import java.util.Collections

class EventStreamTest {
    private val job = Job()
    private val scope = CoroutineScope(Dispatchers.Default + job)
    private val clock = FakeClock()
    private val transport = FakeWebSocketTransport()
    private val api = RingerApiClient("http://127.0.0.1:8080", Samples.jwt("{\"sub\":\"bob\"}"),
                                      FakeHttpTransport { throw IOException("unused") })
    private val events: MutableList<Long> = Collections.synchronizedList(ArrayList())
    private val statuses: MutableList<EventStream.Status> = Collections.synchronizedList(ArrayList())
    private val resumePoints: MutableList<Long> = Collections.synchronizedList(ArrayList())
    private val serverTimes: MutableList<Long> = Collections.synchronizedList(ArrayList())
    private var random = 0.5
    private val stream = EventStream(api, "d1", transport, scope, onEvent = { events.add(it.seq) },
                                     onStatus = { statuses.add(it) }, onResumePoint = { resumePoints.add(it) },
                                     onServerTime = { serverTimes.add(it) }, now = { clock.now() },
                                     sleepUntil = { clock.sleepUntil(it) }, random = { random })

    @After
    fun cancelScope() {
        stream.stop()
        job.cancel()
    }

    private fun open(): FakeWebSocketTransport.Connection {
        transport.script(null)
        return transport.nextConnection()
    }

    @Test
    fun startResumesAfterTheGivenSeqWithTheUsersCredentials() {
        stream.start(since = 5)
        val (url, headers) = transport.nextAttempt()
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d1&since=5", url)
        assertEquals(api.authorizationHeaders, headers)
        open()
        eventually("connected") { statuses == listOf(EventStream.Status.Connected) }
    }

    @Test
    fun eventsArriveInOrderAndOldOrRepeatedOnesAreDropped() {
        stream.start(since = 5)
        transport.nextAttempt()
        val connection = open()
        for (seq in listOf(6L, 4L, 7L, 7L, 5L, 9L)) connection.send(Samples.event(seq))
        connection.send("not json")
        connection.send("{\"seq\":10,\"type\":\"call.incoming\"}")
        eventually("events") { events.size == 3 }
        assertEquals(listOf(6L, 7L, 9L), events)
        assertEquals(listOf(6L, 7L, 9L), resumePoints)
        assertEquals(9L, stream.lastSeq)
    }

    @Test
    fun streamReadyMovesTheResumePointAndTellsTheServerTime() {
        stream.start()
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d1", transport.nextAttempt().first)
        val connection = open()
        connection.send("{\"type\":\"stream.ready\",\"seq\":41,\"server_time_ms\":1767225600123}")
        eventually("resume point") { resumePoints == listOf(41L) }
        assertEquals(listOf(1_767_225_600_123L), serverTimes)
        // An event already on its way when the stream went live is still delivered, without moving the point.
        connection.send(Samples.event(40))
        connection.send(Samples.event(42))
        eventually("events") { events == listOf(40L, 42L) }
        assertEquals(listOf(41L, 42L), resumePoints)
        connection.closeFromServer(WebSocketClose.ABNORMAL)
        eventually("sleeping") { clock.deadlines.size == 1 }
        clock.advance(60_000)
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d1&since=42", transport.nextAttempt().first)
    }

    @Test
    fun aDropReconnectsAfterTheJitteredBackoffOnTheInjectedClockAndResumes() {
        stream.start(since = 5)
        transport.nextAttempt()
        val connection = open()
        connection.send(Samples.event(8))
        eventually("event") { events == listOf(8L) }
        val start = clock.now()
        connection.closeFromServer(WebSocketClose(1001, "going away"))
        // First retry: ceiling 250 ms, half plus half of the rest at random 0.5: 188 ms.
        eventually("lost") { statuses.size == 2 }
        assertEquals(EventStream.Status.Lost(188), statuses[1])
        eventually("sleeping") { clock.deadlines == listOf(start + 188) }
        clock.advance(187)
        transport.assertNoAttemptWithin(50)
        clock.advance(1)
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d1&since=8", transport.nextAttempt().first)
        open()
        eventually("restored") { statuses.size == 3 }
        assertEquals(EventStream.Status.Restored, statuses[2])
    }

    @Test
    fun failedAttemptsBackOffExponentiallyAndAnOpenSocketResetsThem() {
        random = 1.0
        stream.start()
        transport.nextAttempt()
        val delays = ArrayList<Long>()
        repeat(4) {
            transport.script(IOException("refused"))
            eventually("lost ${it + 1}") { statuses.size == it + 1 }
            delays.add((statuses[it] as EventStream.Status.Lost).retryInMs)
            eventually("sleeping") { clock.deadlines.size == 1 }
            clock.advance(delays.last())
            transport.nextAttempt()
        }
        assertEquals(listOf(500L, 1_000L, 2_000L, 4_000L), delays)
        val connection = open()
        eventually("connected") { statuses.size == 5 }
        assertEquals(EventStream.Status.Connected, statuses[4])
        connection.closeFromServer(WebSocketClose.ABNORMAL)
        eventually("lost again") { statuses.size == 6 }
        assertEquals(EventStream.Status.Lost(250), statuses[5])
    }

    @Test
    fun aReplacedSocketStopsWithoutReconnecting() {
        stream.start()
        transport.nextAttempt()
        open().closeFromServer(WebSocketClose(4001, "replaced"))
        eventually("replaced") { statuses.size == 2 }
        assertEquals(EventStream.Status.Replaced, statuses[1])
        clock.advance(600_000)
        transport.assertNoAttemptWithin(50)
        // The app may take the socket back.
        stream.start()
        transport.nextAttempt()
    }

    @Test
    fun refusalsStopOrBackOffByStatus() {
        stream.start()
        transport.nextAttempt()
        transport.script(WebSocketUpgradeRefused(429))
        eventually("429") { statuses.size == 1 }
        // 429: the slow backoff, 2.5…5 s for the first.
        assertEquals(EventStream.Status.Lost(3_750), statuses[0])
        eventually("sleeping") { clock.deadlines.size == 1 }
        clock.advance(3_750)
        transport.nextAttempt()
        transport.script(WebSocketUpgradeRefused(401))
        eventually("401") { statuses.size == 2 }
        assertEquals(EventStream.Status.Unauthorized, statuses[1])
        stream.start()
        transport.nextAttempt()
        transport.script(WebSocketUpgradeRefused(422))
        eventually("422") { statuses.size == 3 }
        assertEquals(EventStream.Status.Refused(422), statuses[2])
        stream.start()
        transport.nextAttempt()
        transport.script(WebSocketUpgradeRefused(408))
        eventually("408") { statuses.size == 4 }
        assertTrue(statuses[3] is EventStream.Status.Lost)
    }

    @Test
    fun stopClosesTheSocketAndReportsClosedOnce() {
        stream.start()
        transport.nextAttempt()
        val connection = open()
        eventually("connected") { statuses.size == 1 }
        stream.stop()
        stream.stop()
        assertTrue(connection.closedByClient)
        Thread.sleep(50)
        assertEquals(listOf(EventStream.Status.Connected, EventStream.Status.Closed), statuses)
        stream.start()
        transport.assertNoAttemptWithin(50)
    }

    @Test
    fun stopDuringTheBackoffWaitEndsTheLoop() {
        stream.start()
        transport.nextAttempt()
        transport.script(IOException("refused"))
        eventually("sleeping") { clock.deadlines.size == 1 }
        stream.stop()
        eventually("sleep cancelled") { clock.deadlines.isEmpty() }
        clock.advance(60_000)
        transport.assertNoAttemptWithin(50)
        assertEquals(EventStream.Status.Closed, statuses.last())
    }
}
