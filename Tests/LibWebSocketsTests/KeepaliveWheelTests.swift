import Testing

@testable import LibWebSockets

/// The keepalive timer wheel as a pure value: PING after `pingAfter` quiet seconds, hang-up after twice
/// that (RFC 6455 §5.5.2), at a cost bounded by the PING rate.
@Suite struct KeepaliveWheelTests {
    /// Advances one second at a time and records each decision with the second it came at.
    private func run(
        _ wheel: inout KeepaliveWheel, until second: Int,
        every: (Int, inout KeepaliveWheel) -> Void = { _, _ in }
    ) -> [(Int, KeepaliveWheel.Decision)] {
        var seen: [(Int, KeepaliveWheel.Decision)] = []
        while wheel.now < second {
            let next = wheel.now + 1
            every(next, &wheel)
            seen += wheel.advance(to: next).map { (next, $0) }
        }
        return seen
    }

    @Test func quietSocketIsPingedAfterTheIntervalAndHungUpAfterTwice() {
        var wheel = KeepaliveWheel(pingAfter: 20, now: 100)
        wheel.open(1, at: 100)
        let seen = run(&wheel, until: 200)
        #expect(seen.map(\.0) == [120, 140])
        #expect(seen.map(\.1) == [.ping(1), .hangUp(1)])
        #expect(wheel.count == 0)
    }

    @Test func dataOrPongKeepsASocketOpenAndDelaysItsPing() {
        var wheel = KeepaliveWheel(pingAfter: 10, now: 0)
        wheel.open(1, at: 0)
        // Heard every 7 s: never quiet for 10 s, so never pinged.
        let chatty = run(&wheel, until: 70) { second, wheel in
            if second % 7 == 0 { wheel.heard(1, at: second) }
        }
        #expect(chatty.isEmpty)
        // Last heard at 70: PING at 80; a PONG at 85 postpones the next PING to 95, and the hang-up to 105.
        let later = run(&wheel, until: 120) { second, wheel in
            if second == 85 { wheel.heard(1, at: second) }
        }
        #expect(later.map(\.0) == [80, 95, 105])
        #expect(later.map(\.1) == [.ping(1), .ping(1), .hangUp(1)])
    }

    @Test func closedSocketsAreForgottenAndNeverDecided() {
        var wheel = KeepaliveWheel(pingAfter: 5, now: 0)
        wheel.open(1, at: 0)
        wheel.open(2, at: 0)
        wheel.close(1)
        #expect(run(&wheel, until: 20).map(\.1) == [.ping(2), .hangUp(2)])
        wheel.heard(1, at: 20)
        #expect(wheel.count == 0)
    }

    @Test func aStalledClockStillLeavesThePeerTimeToAnswerThePing() {
        var wheel = KeepaliveWheel(pingAfter: 10, now: 0)
        wheel.open(1, at: 0)
        // The loop was busy for 25 s: the PING goes out late, and the hang-up waits at least a second after it.
        #expect(wheel.advance(to: 25) == [.ping(1)])
        #expect(wheel.advance(to: 25).isEmpty)
        #expect(wheel.advance(to: 26) == [.hangUp(1)])
    }

    @Test func workPerSecondIsBoundedByThePingRateNotBySocketsOrMessages() {
        // 2,000 sockets, PING every 20 s, each heard every second: a socket is visited at most once per
        // 20 s (when its slot comes round), however often it is heard, so 100 s cost ≤ 2,000 × 100 / 20 visits.
        var wheel = KeepaliveWheel(pingAfter: 20, now: 0)
        for id in 0..<2000 { wheel.open(UInt64(id), at: 0) }
        var decisions = 0
        for second in 1...100 {
            for id in 0..<2000 { wheel.heard(UInt64(id), at: second) }
            decisions += wheel.advance(to: second).count
        }
        #expect(decisions == 0)
        #expect(wheel.visits <= 2000 * 100 / 20)
        #expect(wheel.count == 2000)
    }
}
