import Foundation
import Testing

@testable import RingerStore

/// The pure parts of the PostgreSQL store's time limits (issue 26, item 2): the deadline arithmetic, the wait for a
/// pooled connection, which unanswered statements leave a change in doubt, and the session's server-side limits.
@Suite struct PostgresDeadlineTests {
    @Test func aDeadlineCountsFromItsStartAndRoundsMillisecondsUp() {
        let start = ContinuousClock.now
        let deadline = PostgresDeadline(limit: .milliseconds(1500), from: start)
        #expect(deadline.instant == start + .milliseconds(1500))
        #expect(!deadline.hasPassed(at: start + .milliseconds(1499)))
        #expect(deadline.hasPassed(at: start + .milliseconds(1500)))
        #expect(deadline.limitMilliseconds == 1500)
        #expect(PostgresDeadline.text(of: deadline.limit) == "1.5 s")
        #expect(PostgresDeadline.text(of: .seconds(2)) == "2 s")
        // PostgreSQL counts milliseconds, and 0 would switch a limit off.
        #expect(PostgresDeadline(limit: .microseconds(1)).limitMilliseconds == 1)
        #expect(PostgresDeadline(limit: .microseconds(2001)).limitMilliseconds == 3)
    }

    @Test func aPassedDeadlinePollsForNoTimeAndTheEarlierOfTwoWins() {
        let start = ContinuousClock.now
        let passed = PostgresDeadline(limit: .milliseconds(10), from: start - .seconds(1))
        #expect(passed.pollTimeout == 0)
        let later = PostgresDeadline(limit: .seconds(5), from: start)
        #expect((1...5000).contains(later.pollTimeout))
        #expect(later.earlier(passed) == passed)
        #expect(passed.earlier(later) == passed)
        #expect(later.earlier(nil) == later)
    }

    @Test func theSessionGetsTheOperationLimitAsServerSideBackstops() {
        #expect(
            PostgresConnection.sessionLimits(.seconds(2))
                == "SET statement_timeout = 2000; SET idle_in_transaction_session_timeout = 2000")
        #expect(PostgresConnection.sessionLimits(.milliseconds(250)).hasPrefix("SET statement_timeout = 250;"))
    }

    @Test func onlyACommitOrAWriteOutsideATransactionLeavesItsOutcomeUnknown() {
        for sql in ["COMMIT", " commit", "END"] {
            #expect(PostgresConnection.mayHaveCommitted(sql, inTransaction: true), "\(sql)")
            #expect(PostgresConnection.mayHaveCommitted(sql, inTransaction: false), "\(sql)")
        }
        // Outside a transaction a write commits by itself.
        for sql in [
            "INSERT INTO health_probe (id, at) VALUES (1, $1)", "\n  UPDATE devices SET x = 1", "DELETE FROM calls",
        ] {
            #expect(PostgresConnection.mayHaveCommitted(sql, inTransaction: false), "\(sql)")
            // Inside one, nothing is kept before COMMIT, and a session whose client is gone rolls back.
            #expect(!PostgresConnection.mayHaveCommitted(sql, inTransaction: true), "\(sql)")
        }
        for sql in ["BEGIN", "ROLLBACK", "SELECT 1", "SET statement_timeout = 2000", "SHOW server_version"] {
            #expect(!PostgresConnection.mayHaveCommitted(sql, inTransaction: false), "\(sql)")
        }
    }

    @Test func aTimeoutIsUnavailableAndSaysWhetherTheChangeMayHaveBeenKept() {
        let waited = StoreError.timedOut("waiting for a pooled connection", limit: .seconds(2), outcomeUnknown: false)
        #expect(waited.isUnavailable)
        #expect(!waited.isBusy)
        #expect(!waited.isOutcomeUnknown)
        #expect(
            waited.description == "PostgreSQL did not answer (waiting for a pooled connection): no answer within 2 s")
        let commit = StoreError.timedOut("PQsendQuery", limit: .seconds(2), outcomeUnknown: true)
        #expect(commit.isUnavailable && commit.isOutcomeUnknown)
        #expect(commit.description.hasSuffix("the change may or may not have been committed"))
        #expect(
            StoreError.serverUnreachable("server closed the connection unexpectedly", outcomeUnknown: true)
                .isOutcomeUnknown)
        #expect(!StoreError.serverUnreachable("connection refused").isOutcomeUnknown)
    }

    @Test func aFreeSlotIsLentAtOnceAndAGivenBackOneGoesToTheFirstWaiter() async throws {
        let slots = PostgresPoolSlots(count: 2)
        let later = PostgresDeadline(limit: .seconds(30))
        let first = try await slots.borrow(until: later) {
            StoreError.timedOut("test", limit: .seconds(30), outcomeUnknown: false)
        }
        let second = try await slots.borrow(until: later) {
            StoreError.timedOut("test", limit: .seconds(30), outcomeUnknown: false)
        }
        #expect(Set([first, second]) == [0, 1])
        let waiting = Task {
            try await slots.borrow(until: later) {
                StoreError.timedOut("test", limit: .seconds(30), outcomeUnknown: false)
            }
        }
        while slots.waitingCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        slots.giveBack(second)
        #expect(try await waiting.value == second)
        #expect(slots.freeCount == 0)
        slots.giveBack(first)
        slots.giveBack(second)
        #expect(slots.freeCount == 2)
    }

    @Test func aWaiterStillWaitingAtItsDeadlineIsRefusedAndNoSlotIsLost() async throws {
        let slots = PostgresPoolSlots(count: 1)
        let held = try await slots.borrow(until: PostgresDeadline(limit: .seconds(30))) {
            StoreError.timedOut("test", limit: .seconds(30), outcomeUnknown: false)
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            try await slots.borrow(until: PostgresDeadline(limit: .milliseconds(200), from: start)) {
                StoreError.timedOut("waiting for a pooled connection", limit: .milliseconds(200), outcomeUnknown: false)
            }
        }
        let waited = start.duration(to: .now)
        #expect(waited >= .milliseconds(200) && waited < .seconds(2), "\(waited)")
        #expect(error?.isUnavailable == true)
        #expect(slots.waitingCount == 0)
        // The slot given back after the refusal is free, not handed to the refused waiter.
        slots.giveBack(held)
        #expect(slots.freeCount == 1)
        let again = try await slots.borrow(until: PostgresDeadline(limit: .milliseconds(50))) {
            StoreError.timedOut("test", limit: .milliseconds(50), outcomeUnknown: false)
        }
        #expect(again == held)
    }
}
