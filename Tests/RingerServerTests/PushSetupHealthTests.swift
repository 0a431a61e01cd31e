import Foundation
@testable import RingerServer
import Testing

/// Configuration errors are reported once per (environment, topic) and cleared by the next success.
@Suite struct PushSetupHealthTests {
    @Test func aConfigurationErrorIsNewOnceCountedThenClearedByAnAcceptedPush() {
        let health = PushSetupHealth()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(health.record(environment: "production", topic: "a.voip", reason: "TopicDisallowed", at: start))
        #expect(!health.record(environment: "production", topic: "a.voip", reason: "TopicDisallowed", at: start + 1))
        // Another topic, or the same topic in the other environment, is its own problem.
        #expect(health.record(environment: "sandbox", topic: "a.voip", reason: "TopicDisallowed", at: start + 2))
        #expect(health.current.map(\.count) == [2, 1])
        #expect(health.current.first?.since == start)
        // A different reason for the same topic is news again.
        #expect(health.record(environment: "production", topic: "a.voip", reason: "BadCertificate", at: start + 3))

        #expect(health.recordSuccess(environment: "production", topic: "a.voip")?.reason == "BadCertificate")
        #expect(health.recordSuccess(environment: "production", topic: "a.voip") == nil)
        #expect(health.current.map(\.environment) == ["sandbox"])
    }
}
