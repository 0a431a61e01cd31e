import Foundation
import RingerCore
import Testing

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// The outage rule: a scope is degraded once three sends in a row failed (or one conclusive failure), each
/// within the window of the last, and recovers on an answered send or a quiet window. Time is given to it.
@Suite struct ProviderHealthTests {
    private let unavailable = ProviderAttemptOutcome.failed(
        ProviderFailure(reason: "ServiceUnavailable", detail: "HTTP 503"))

    private func failed(_ reason: String, detail: String? = nil, hint: String? = nil) -> ProviderAttemptOutcome {
        .failed(ProviderFailure(reason: reason, detail: detail, hint: hint))
    }

    @Test func threeFailedSendsInARowDegradeTheScopeOnceWithTheLastReason() {
        var health = ProviderHealth<String>()
        #expect(health.record(unavailable, for: "apns", at: t0) == nil)
        #expect(health.record(failed("InternalServerError", detail: "HTTP 500"), for: "apns", at: t0 + 0.4) == nil)
        #expect(health.outages(at: t0 + 0.5).isEmpty, "two failures are routine")
        let change = health.record(failed("TooManyRequests", detail: "HTTP 429"), for: "apns", at: t0 + 1.2)
        let outage = ProviderOutage(
            scope: "apns", reason: "TooManyRequests", detail: "HTTP 429", hint: nil, since: t0,
            lastFailure: t0 + 1.2, failures: 3)
        #expect(change == .degraded(outage))
        #expect(health.outages(at: t0 + 2) == [outage])
        // Announced once: more failures only update it.
        #expect(health.record(unavailable, for: "apns", at: t0 + 3) == nil)
        #expect(health.outages(at: t0 + 3).first?.failures == 4)
        #expect(health.outages(at: t0 + 3).first?.reason == "ServiceUnavailable")
        #expect(health.outages(at: t0 + 3).first?.since == t0)
    }

    @Test func oneAnsweredSendEndsTheRunAndRecoversAtOnce() {
        var health = ProviderHealth<String>()
        for second in 0..<2 { _ = health.record(unavailable, for: "fcm", at: t0 + Double(second)) }
        // An answer between failures: the provider works; the count starts again.
        #expect(health.record(.answered, for: "fcm", at: t0 + 2) == nil)
        for second in 3..<5 { #expect(health.record(unavailable, for: "fcm", at: t0 + Double(second)) == nil) }
        #expect(health.outages(at: t0 + 5).isEmpty)
        guard case .degraded = health.record(unavailable, for: "fcm", at: t0 + 5) else {
            Issue.record("three in a row after the answer degrade")
            return
        }
        guard case .recovered(let outage, .answered) = health.record(.answered, for: "fcm", at: t0 + 6) else {
            Issue.record("an answer recovers")
            return
        }
        #expect(outage.failures == 3 && outage.since == t0 + 3)
        #expect(health.outages(at: t0 + 6).isEmpty)
        #expect(health.scopeCount == 0)
    }

    @Test func aQuietWindowAfterTheLastFailureRecoversWithoutAnAnswer() {
        var health = ProviderHealth<String>(minimumFailures: 3, window: 60)
        for second in 0..<3 { _ = health.record(unavailable, for: "apns", at: t0 + Double(second)) }
        #expect(health.outages(at: t0 + 61.9).count == 1, "degraded until a window after the last failure")
        #expect(health.expire(at: t0 + 61.9).isEmpty)
        #expect(health.outages(at: t0 + 62).isEmpty)
        let changes = health.expire(at: t0 + 62)
        #expect(changes.count == 1)
        if case .recovered(let outage, .quiet)? = changes.first {
            #expect(outage.lastFailure == t0 + 2 && outage.failures == 3)
        } else {
            Issue.record("expected a quiet recovery, got \(changes)")
        }
        #expect(health.scopeCount == 0)
        #expect(health.expire(at: t0 + 200).isEmpty, "told once")
    }

    @Test func failuresFurtherApartThanTheWindowNeverAddUp() {
        var health = ProviderHealth<String>(minimumFailures: 3, window: 60)
        for minute in 0..<5 { #expect(health.record(unavailable, for: "apns", at: t0 + Double(minute) * 61) == nil) }
        #expect(health.outages(at: t0 + 4 * 61).isEmpty)
        // Sparse but continuous: every failure within the window of the one before still adds up.
        for step in 0..<3 { _ = health.record(unavailable, for: "fcm", at: t0 + Double(step) * 50) }
        #expect(health.outages(at: t0 + 100).map(\.scope) == ["fcm"])
    }

    @Test func aFailureAfterAStaleOutageStartsAFreshRunAndSaysTheOldOneEnded() {
        var health = ProviderHealth<String>()
        for second in 0..<3 { _ = health.record(unavailable, for: "apns", at: t0 + Double(second)) }
        // Nobody called expire: the next failure, two minutes on, finds the outage stale.
        guard case .recovered(let old, .quiet) = health.record(unavailable, for: "apns", at: t0 + 120) else {
            Issue.record("the stale outage ends")
            return
        }
        #expect(old.failures == 3)
        #expect(health.outages(at: t0 + 120).isEmpty)
        _ = health.record(unavailable, for: "apns", at: t0 + 121)
        guard case .degraded(let fresh) = health.record(unavailable, for: "apns", at: t0 + 122) else {
            Issue.record("a fresh run of three degrades again")
            return
        }
        #expect(fresh.since == t0 + 120 && fresh.failures == 3)
    }

    @Test func aConclusiveFailureDegradesAtOnce() {
        var health = ProviderHealth<String>()
        let grant = ProviderAttemptOutcome.failed(
            ProviderFailure(
                reason: "TokenEndpointUnreachable",
                detail: "no access token within 5.0 s", isConclusive: true))
        guard case .degraded(let outage) = health.record(grant, for: "ringer-demo", at: t0) else {
            Issue.record("one failed grant is enough")
            return
        }
        #expect(outage.reason == "TokenEndpointUnreachable" && outage.failures == 1)
        // A plain failure after it keeps it degraded (the run holds a conclusive failure) with the new reason.
        #expect(health.record(unavailable, for: "ringer-demo", at: t0 + 1) == nil)
        #expect(health.outages(at: t0 + 1).first?.reason == "ServiceUnavailable")
        #expect(health.expire(at: t0 + 61).count == 1)
    }

    @Test func scopesAreIndependent() {
        var health = ProviderHealth<String>()
        for second in 0..<3 {
            _ = health.record(unavailable, for: "production/app.voip", at: t0 + Double(second))
            _ = health.record(.answered, for: "sandbox/app.voip", at: t0 + Double(second))
        }
        #expect(health.outages(at: t0 + 3).map(\.scope) == ["production/app.voip"])
        #expect(health.scopeCount == 1, "an answered scope holds nothing")
    }

    @Test func aHintOnceSeenStaysForTheRun() {
        var health = ProviderHealth<String>()
        _ = health.record(failed("Unreachable", detail: "connection refused"), for: "apns", at: t0)
        _ = health.record(
            failed("Unreachable", detail: "certificate is not yet valid", hint: "check the clock"), for: "apns",
            at: t0 + 1)
        _ = health.record(failed("Unreachable", detail: "connection refused"), for: "apns", at: t0 + 2)
        let outage = health.outages(at: t0 + 2).first
        #expect(outage?.detail == "connection refused")
        #expect(outage?.hint == "check the clock")
    }
}
