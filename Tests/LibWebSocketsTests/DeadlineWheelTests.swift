import Testing

@testable import LibWebSockets

/// The request-deadline timer wheel as a pure value: each id expires once, at its tick, at a cost of the ids
/// armed in the slots that passed, not of every id armed.
@Suite struct DeadlineWheelTests {
    @Test func anArmedIdExpiresAtItsTickAndOnlyOnce() {
        var wheel = DeadlineWheel(horizon: 300, now: 1000)
        wheel.arm(7, at: 1300)
        #expect(wheel.advance(to: 1299).isEmpty)
        #expect(wheel.advance(to: 1300) == [7])
        #expect(wheel.advance(to: 1700).isEmpty)
        #expect(wheel.count == 0)
    }

    @Test func aCancelledOrReArmedIdDoesNotExpireEarly() {
        var wheel = DeadlineWheel(horizon: 100, now: 0)
        wheel.arm(1, at: 50)
        wheel.arm(2, at: 50)
        wheel.cancel(1)
        #expect(wheel.advance(to: 40).isEmpty)
        wheel.arm(2, at: 90)
        #expect(wheel.advance(to: 89).isEmpty)
        #expect(wheel.advance(to: 90) == [2])
    }

    @Test func deadlinesBeyondTheHorizonAreClampedAndAStallExpiresEverythingDue() {
        var wheel = DeadlineWheel(horizon: 10, now: 0)
        wheel.arm(1, at: 500)  // clamped to tick 10
        wheel.arm(2, at: -5)  // clamped to tick 1
        wheel.arm(3, at: 5)
        // The clock jumps far past a whole ring: each expires once, in the order they fell due.
        #expect(wheel.advance(to: 1000) == [2, 3, 1])
        #expect(wheel.count == 0)
    }

    @Test func advancingVisitsOnlyTheIdsInPassedSlots() {
        var wheel = DeadlineWheel(horizon: 300, now: 0)
        for id in UInt64(1)...10_000 { wheel.arm(id, at: 300) }
        wheel.arm(0, at: 10)
        for tick in 1...299 { _ = wheel.advance(to: tick) }
        // 299 ticks, one expiry: the 10,000 ids due later were never looked at.
        #expect(wheel.visits == 1)
        #expect(wheel.advance(to: 300).count == 10_000)
    }
}

/// The per-address connection count the acceptor keeps.
@Suite struct PerAddressCapTests {
    @Test func anAddressAtTheCapIsRefusedUntilOneOfItsConnectionsCloses() {
        var cap = PerAddressCap(limit: 2, capsLoopback: false)
        #expect(cap.admit("203.0.113.9") == .counted("203.0.113.9"))
        #expect(cap.admit("203.0.113.9") == .counted("203.0.113.9"))
        #expect(cap.admit("203.0.113.9") == .refused("203.0.113.9"))
        #expect(cap.admit("198.51.100.1") == .counted("198.51.100.1"))
        cap.release("203.0.113.9")
        #expect(cap.admit("203.0.113.9") == .counted("203.0.113.9"))
        cap.release("203.0.113.9")
        cap.release("203.0.113.9")
        cap.release("198.51.100.1")
        #expect(cap.addresses == 0)
    }

    /// Issue 26: the cap counted full IPv6 addresses, so one subscriber's /64 (RFC 6177) held the cap's worth from
    /// each address. An IPv6 /64 is one client; an IPv4-mapped peer is its IPv4 address.
    @Test func anIPv6Slash64CountsAsOneClient() {
        var cap = PerAddressCap(limit: 2, capsLoopback: false)
        #expect(cap.admit("2001:db8:1:2::1") == .counted("2001:db8:1:2::/64"))
        #expect(cap.admit("2001:db8:1:2:ffff:ffff:ffff:ffff") == .counted("2001:db8:1:2::/64"))
        #expect(cap.admit("2001:db8:1:2:abcd::9") == .refused("2001:db8:1:2::/64"))
        #expect(cap.admit("2001:db8:1:3::1") == .counted("2001:db8:1:3::/64"))
        #expect(cap.admit("::ffff:203.0.113.9") == .counted("203.0.113.9"))
        #expect(cap.admit("203.0.113.9") == .counted("203.0.113.9"))
        #expect(cap.admit("::ffff:203.0.113.9") == .refused("203.0.113.9"))
    }

    @Test func loopbackIsExemptUnlessCapped() {
        var open = PerAddressCap(limit: 1, capsLoopback: false)
        for address in ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.5"] {
            #expect(open.admit(address) == .exempt)
            #expect(open.admit(address) == .exempt)
        }
        var capped = PerAddressCap(limit: 1, capsLoopback: true)
        #expect(capped.admit("127.0.0.1") == .counted("127.0.0.1"))
        #expect(capped.admit("127.0.0.1") == .refused("127.0.0.1"))
        #expect(!PerAddressCap.isLoopback("128.0.0.1"))
        #expect(!PerAddressCap.isLoopback("::2"))
    }
}
