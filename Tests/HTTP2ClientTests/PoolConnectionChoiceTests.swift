@testable import HTTP2Client
import Testing

/// ``HTTP2ClientPool/lane(inFlight:capacity:)``: one connection carries the load while it has free streams.
struct PoolLaneChoiceTests {
    @Test("A request goes to the first lane with a free stream, even when a later lane is idle")
    func firstLaneWithRoomIsFilledFirst() {
        #expect(HTTP2ClientPool.lane(inFlight: [0, 0], capacity: [1000, 1000]) == 0)
        #expect(HTTP2ClientPool.lane(inFlight: [999, 0], capacity: [1000, 1000]) == 0)
        #expect(HTTP2ClientPool.lane(inFlight: [1000, 0], capacity: [1000, 1000]) == 1)
    }

    @Test("A server's low stream limit spills the rest to the next lane")
    func lowStreamLimitSpills() {
        #expect(HTTP2ClientPool.lane(inFlight: [100, 3], capacity: [100, 100]) == 1)
        #expect(HTTP2ClientPool.lane(inFlight: [1, 0], capacity: [1, 1]) == 1)  // before either lane's SETTINGS
    }

    @Test("A lane whose host failed (capacity 0) is passed over while another has room")
    func failingLaneIsPassedOver() {
        #expect(HTTP2ClientPool.lane(inFlight: [0, 5], capacity: [0, 1000]) == 1)
    }

    @Test("When every lane is full, the one with the fewest in flight takes it (the first of equals)")
    func fullLanesShareByFewestInFlight() {
        #expect(HTTP2ClientPool.lane(inFlight: [7, 4], capacity: [1, 1]) == 1)
        #expect(HTTP2ClientPool.lane(inFlight: [4, 4], capacity: [0, 0]) == 0)
        #expect(HTTP2ClientPool.lane(inFlight: [3], capacity: [0]) == 0)
    }
}
