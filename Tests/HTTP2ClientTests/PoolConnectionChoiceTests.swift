import Testing

@testable import HTTP2Client

/// ``HTTP2ClientPool/connection(inFlight:capacity:)``: one connection carries the load while it has free streams.
struct PoolConnectionChoiceTests {
    @Test("A request goes to the first connection with a free stream, even when a later connection is idle")
    func firstConnectionWithRoomIsFilledFirst() {
        #expect(HTTP2ClientPool.connection(inFlight: [0, 0], capacity: [1000, 1000]) == 0)
        #expect(HTTP2ClientPool.connection(inFlight: [999, 0], capacity: [1000, 1000]) == 0)
        #expect(HTTP2ClientPool.connection(inFlight: [1000, 0], capacity: [1000, 1000]) == 1)
    }

    @Test("A server's low stream limit spills the rest to the next connection")
    func lowStreamLimitSpills() {
        #expect(HTTP2ClientPool.connection(inFlight: [100, 3], capacity: [100, 100]) == 1)
        // Before either connection's SETTINGS:
        #expect(HTTP2ClientPool.connection(inFlight: [1, 0], capacity: [1, 1]) == 1)
    }

    @Test("A connection whose host failed (capacity 0) is passed over while another has room")
    func failingConnectionIsPassedOver() {
        #expect(HTTP2ClientPool.connection(inFlight: [0, 5], capacity: [0, 1000]) == 1)
    }

    @Test("When every connection is full, the one with the fewest in flight takes it (the first of equals)")
    func fullConnectionsShareByFewestInFlight() {
        #expect(HTTP2ClientPool.connection(inFlight: [7, 4], capacity: [1, 1]) == 1)
        #expect(HTTP2ClientPool.connection(inFlight: [4, 4], capacity: [0, 0]) == 0)
        #expect(HTTP2ClientPool.connection(inFlight: [3], capacity: [0]) == 0)
    }
}
