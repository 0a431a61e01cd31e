import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// Configuration errors are reported once per scope (APNs environment and topic, FCM project) and cleared
/// by the next success.
@Suite struct PushSetupHealthTests {
    private func apns(_ environment: APNsEnvironment, _ topic: String) -> PushScope {
        PushScope(provider: .apns, environment: environment, topic: topic)
    }

    @Test func aConfigurationErrorIsNewOnceCountedThenClearedByAnAcceptedPush() {
        let health = PushSetupHealth()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(health.record(apns("production", "a.voip"), reason: "TopicDisallowed", at: start))
        #expect(!health.record(apns("production", "a.voip"), reason: "TopicDisallowed", at: start + 1))
        // Another topic, or the same topic in the other environment, is its own problem.
        #expect(health.record(apns("sandbox", "a.voip"), reason: "TopicDisallowed", at: start + 2))
        #expect(health.current(at: start).map(\.count) == [2, 1])
        #expect(health.current(at: start).first?.since == start)
        // A different reason for the same topic is news again.
        #expect(health.record(apns("production", "a.voip"), reason: "BadCertificate", at: start + 3))

        #expect(health.recordSuccess(apns("production", "a.voip"), at: start + 4)?.reason == "BadCertificate")
        #expect(health.recordSuccess(apns("production", "a.voip"), at: start + 4) == nil)
        #expect(health.current(at: start).map(\.environment) == ["sandbox"])
    }

    @Test func anFCMProjectIsAScopeOfItsOwn() {
        let health = PushSetupHealth()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let project = PushScope(provider: .fcm, project: "ringer-demo")
        #expect(health.record(project, reason: "SENDER_ID_MISMATCH", at: start))
        #expect(health.record(PushScope(provider: .fcm, project: "other"), reason: "SENDER_ID_MISMATCH", at: start))
        #expect(
            health.current(at: start).map(\.project) == ["ringer-demo", "other"]
                || health.current(at: start).map(\.project) == ["other", "ringer-demo"])
        #expect(
            health.current(at: start).allSatisfy { $0.environment == nil && $0.topic == nil && $0.provider == "fcm" })
        #expect(health.recordSuccess(project, at: start + 1)?.reason == "SENDER_ID_MISMATCH")
        #expect(health.current(at: start).map(\.project) == ["other"])
    }
}
