import Testing

@testable import LibWebSockets

/// Which connection gives way at the connection budget (issue 26: 15,800 slow bodies kept a normal client waiting
/// 27 s). Times are milliseconds; the grace is 1000.
@Suite struct ConnectionBudgetTests {
    @Test func underTheBudgetEveryConnectionIsAdmitted() {
        var budget = ConnectionBudget(limit: 2)
        #expect(budget.admit(at: 0) == .admit)
        budget.opened(1, at: 0)
        #expect(budget.admit(at: 0) == .admit)
        budget.opened(2, at: 0)
        #expect(budget.count == 2)
        budget.closed(1)
        #expect(budget.admit(at: 0) == .admit)
    }

    @Test func atTheBudgetTheOldestSlowConnectionGivesWayOnceItsGraceIsOver() {
        var budget = ConnectionBudget(limit: 3)
        budget.opened(1, at: 0)  // never sends a head
        budget.opened(2, at: 100)
        budget.change(2, to: .busy, at: 200)
        budget.change(2, to: .readingBody, at: 200)  // trickles a body
        budget.opened(3, at: 300)
        // Nobody has been slow for a whole second yet: the newcomer is refused, not an early client.
        #expect(budget.admit(at: 900) == .refuse)
        #expect(budget.admit(at: 1000) == .admitShedding(1))
        budget.opened(4, at: 1000)
        #expect(budget.standing(of: 1) == nil)
        #expect(budget.admit(at: 1200) == .admitShedding(2))
        budget.opened(5, at: 1200)
        #expect(budget.admit(at: 1300) == .admitShedding(3))
    }

    @Test func slowConnectionsGoBeforeIdleOnesAndBusyOrLongLivedOnesNever() {
        var budget = ConnectionBudget(limit: 4)
        for key: UInt in 1...4 { budget.opened(key, at: 0) }
        budget.change(1, to: .busy, at: 0)
        budget.change(1, to: .idle, at: 0)  // answered, keep-alive
        budget.change(2, to: .busy, at: 0)  // being answered
        budget.change(3, to: .busy, at: 0)
        budget.change(3, to: .longLived, at: 0)  // a WebSocket
        // 4 is slow, so it goes first although 1 has been idle as long.
        #expect(budget.admit(at: 5000) == .admitShedding(4))
        budget.opened(5, at: 5000)
        budget.change(5, to: .busy, at: 5000)
        #expect(budget.admit(at: 6000) == .admitShedding(1))
        budget.opened(6, at: 6000)
        budget.change(6, to: .busy, at: 6000)
        // Left: busy 2, the WebSocket 3, busy 5 and 6. Nothing may give way.
        #expect(budget.admit(at: 60000) == .refuse)
        // A WebSocket stays long-lived whatever is reported later.
        budget.change(3, to: .idle, at: 60000)
        #expect(budget.standing(of: 3) == .longLived)
        #expect(budget.admit(at: 90000) == .refuse)
    }

    @Test func aConnectionIsShedByItsCurrentStandingNotAnEarlierOne() {
        var budget = ConnectionBudget(limit: 2)
        budget.opened(1, at: 0)
        budget.opened(2, at: 10)
        budget.change(1, to: .busy, at: 500)  // its head came: no longer slow
        #expect(budget.admit(at: 2000) == .admitShedding(2))
        budget.opened(3, at: 2000)
        budget.change(1, to: .idle, at: 2500)  // answered: idle from 2500
        #expect(budget.admit(at: 3000) == .admitShedding(3))
        budget.opened(4, at: 3000)
        budget.change(4, to: .busy, at: 3000)
        #expect(budget.admit(at: 3400) == .refuse)  // 1 idle for 900 ms only
        #expect(budget.admit(at: 3500) == .admitShedding(1))
    }

    @Test func manyRequestsOnOneConnectionKeepNoGrowingBacklog() {
        var budget = ConnectionBudget(limit: 1)
        budget.opened(1, at: 0)
        for step in 0..<100_000 {
            budget.change(1, to: .busy, at: step)
            budget.change(1, to: .idle, at: step)
        }
        #expect(budget.admit(at: 200_000) == .admitShedding(1))
        #expect(budget.count == 0)
    }

    @Test func theDefaultBudgetKeepsAReserveBelowTheFileLimit() {
        #expect(ConnectionBudget.limit(forFileLimit: 20_000) == 19_375)
        #expect(ConnectionBudget.limit(forFileLimit: 1024) == 976)
        #expect(ConnectionBudget.limit(forFileLimit: 64) == 16)
        #expect(ConnectionBudget.limit(forFileLimit: 1 << 20) == (1 << 20) - 1024)
        #expect(ConnectionBudget.limit(forFileLimit: 10) == 1)
    }
}
