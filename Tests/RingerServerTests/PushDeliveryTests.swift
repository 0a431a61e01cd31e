import Foundation
import RingerCore
import RingerSupport
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// The one place that retries and acts on answers, driven with a scripted sender and a manual clock.
@Suite struct PushDeliveryTests {
    /// Answers from a script, one per send, and remembers each send's server time and real timeout.
    final class ScriptedSender: PushSender {
        struct Message: Sendable { var token: String }
        struct BuildFailure: Error, CustomStringConvertible { var description: String { "data over 4096 bytes" } }
        let answers: LockedValue<[PushAnswer]>
        let sends = LockedValue<[(now: Date, timeout: TimeInterval)]>([])
        /// When set, no message can be built.
        let failsToBuild: Bool
        /// Where every message goes; its provider is the sender's.
        let fixedScope: PushScope
        /// What every message is recorded as.
        let type: PushType

        init(
            _ answers: [PushAnswer], failsToBuild: Bool = false,
            scope: PushScope = PushScope(provider: .fcm, project: "demo"), type: PushType = .high
        ) {
            self.answers = LockedValue(answers)
            self.failsToBuild = failsToBuild
            fixedScope = scope
            self.type = type
        }

        var provider: PushProvider { fixedScope.provider }
        func message(for request: PushRequest) throws -> Message? {
            if failsToBuild { throw BuildFailure() }
            return request.device.fcmToken.map(Message.init)
        }
        func pushType(for request: PushRequest) -> PushType { type }
        func send(_ message: Message, for request: PushRequest, now: Date, timeout: TimeInterval) async -> PushAnswer {
            sends.withLock { $0.append((now, timeout)) }
            return answers.withLock {
                $0.isEmpty ? PushAnswer(status: 200, action: .accepted, requests: 1) : $0.removeFirst()
            }
        }
        func pushType(of message: Message) -> PushType { type }
        func token(of message: Message) -> (kind: PushTokenKind, value: String) { (.fcm, message.token) }
        func apnsID(of message: Message) -> String? { nil }
        func scope(of message: Message, for request: PushRequest) -> PushScope { fixedScope }
    }

    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func fixture(
        scale: Double = 1, log: Logger = .silent(),
        observe: @escaping @Sendable (ServerObservation) -> Void = { _ in }
    )
        async throws -> (SQLiteStore, PushSetupHealth, ManualServerClock, PushDelivery, PushRequest)
    {
        let store = try SQLiteStore(path: ":memory:")
        let device = try await store.registerDevice(
            Device(
                deviceID: "bob-pixel", userID: "bob", platform: .android,
                fcmToken: "fcm-token-1", updatedAt: start.addingTimeInterval(-60)))
        let health = PushSetupHealth()
        let clock = ManualServerClock(start: start, sleeps: .jumpAhead, scale: scale)
        let delivery = PushDelivery(store: store, health: health, clock: clock, log: log, observe: observe)
        let call = Call(
            callID: UUID().uuidString.lowercased(), state: .ringing, caller: Party(id: "alice"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: start, expiresAt: start.addingTimeInterval(45))
        return (store, health, clock, delivery, PushRequest(.ring, call: call, device: device, now: start))
    }

    @Test func aRetryableAnswerIsSentAgainUntilAcceptedAndRecordedOnce() async throws {
        let (store, _, clock, delivery, request) = try await fixture()
        let sender = ScriptedSender([
            PushAnswer(status: 503, reason: "UNAVAILABLE", action: .retry(after: nil), requests: 1),
            PushAnswer(status: 503, reason: "UNAVAILABLE", action: .retry(after: nil), requests: 2),
        ])
        await delivery.deliver(request, via: sender)
        let attempts = try await store.pushAttempts(callID: request.call.callID)
        #expect(attempts.count == 1)
        #expect(attempts.first?.status == 200)
        #expect(attempts.first?.attempts == 4)
        #expect(attempts.first?.provider == "fcm")
        #expect(clock.recordedSleeps.count == 2)
    }

    /// A clock whose every sleep wakes `late` seconds after its deadline, as a loaded machine's does.
    final class LateWakingClock: ServerClock {
        let current: LockedValue<Date>
        let late: TimeInterval
        init(start: Date, late: TimeInterval) {
            current = LockedValue(start)
            self.late = late
        }
        func now() -> Date { current.withLock { $0 } }
        func sleep(until deadline: Date) async throws {
            current.withLock { $0 = max($0, deadline.addingTimeInterval(late)) }
        }
    }

    /// Seen under load in make test: a 502 retried, the retry's wait ending past the ring deadline, and the record
    /// then said only "the push's deadline passed before it was sent", with no status, losing the provider's answer.
    @Test func aRetryThatWakesPastTheDeadlineKeepsTheProvidersLastAnswerOnRecord() async throws {
        let (store, _, _, _, request) = try await fixture()
        let clock = LateWakingClock(start: start, late: 60)
        let delivery = PushDelivery(
            store: store, health: PushSetupHealth(), clock: clock, log: Logger(label: "test"), observe: { _ in })
        let sender = ScriptedSender([
            PushAnswer(status: 502, reason: "Bad Gateway", action: .retry(after: nil), requests: 1)
        ])
        await delivery.deliver(request, via: sender)
        #expect(sender.sends.withLock { $0.count } == 1)
        let attempt = try #require(try await store.pushAttempts(callID: request.call.callID).first)
        #expect(attempt.status == 502 && attempt.reason == "Bad Gateway" && attempt.attempts == 1)
    }

    @Test func aPushWhoseDeadlinePassedBeforeItsFirstSendSaysSo() async throws {
        let (store, _, clock, delivery, request) = try await fixture()
        clock.advance(by: 46)
        let sender = ScriptedSender([])
        await delivery.deliver(request, via: sender)
        #expect(sender.sends.withLock { $0.isEmpty })
        let attempt = try #require(try await store.pushAttempts(callID: request.call.callID).first)
        #expect(attempt.status == nil && attempt.reason == "the push's deadline passed before it was sent")
    }

    @Test func aPushRingerCannotBuildIsRecordedAsItsOwnFailureAndNothingIsSent() async throws {
        let (store, health, _, delivery, request) = try await fixture()
        let sender = ScriptedSender([], failsToBuild: true)
        await delivery.deliver(request, via: sender)
        #expect(sender.sends.withLock { $0.isEmpty })
        let attempt = try #require(try await store.pushAttempts(callID: request.call.callID).first)
        #expect(attempt.status == nil && attempt.attempts == 0 && attempt.pushType == "high")
        #expect(attempt.reason == "RingerCouldNotBuildPush: data over 4096 bytes")
        // Ringer's failure is not the provider's: health and the device are untouched.
        #expect(health.current(at: start).isEmpty)
        #expect(try await store.device(id: "bob-pixel", userID: "bob")?.pushProblem == nil)
    }

    @Test func aProviderThatCannotBeReachedShowsInHealthAfterThreeSendsInARowUntilAPushIsAccepted() async throws {
        let (_, health, clock, delivery, request) = try await fixture()
        let refused = PushAnswer(
            status: nil, reason: "connect failed: connection refused", action: .retry(after: nil), requests: 1)
        let tls = PushAnswer(
            status: nil, reason: "TLS handshake failed: certificate is not yet valid", action: .retry(after: nil),
            requests: 1)
        await delivery.deliver(request, via: ScriptedSender([refused, tls]))
        // Two failures, then accepted: routine, never shown.
        #expect(health.current(at: clock.now()).isEmpty)
        let down = ScriptedSender(Array(repeating: refused, count: 3) + [tls] + Array(repeating: refused, count: 20))
        await delivery.deliver(request, via: down)
        let problem = try #require(health.current(at: clock.now()).first)
        #expect(problem.reason == "Unreachable" && problem.provider == "fcm" && problem.project == "demo")
        #expect(problem.kind == .outage)
        #expect(problem.count == down.sends.withLock { $0.count })
        #expect(problem.lastError == "connect failed: connection refused")
        #expect(problem.lastFailedAt == clock.now())
        // The TLS failure's clock hint stays once seen.
        #expect(problem.hint?.contains("clock") == true)
        // An accepted push clears it at once.
        await delivery.deliver(request, via: ScriptedSender([]))
        #expect(health.current(at: clock.now()).isEmpty)
    }

    @Test func everySendAnswering503ForAWholeRingIsAnOutageThatEndsAMinuteAfterTheLastFailure() async throws {
        let (store, health, clock, delivery, request) = try await fixture()
        let unavailable = PushAnswer(status: 503, reason: "UNAVAILABLE", action: .retry(after: nil), requests: 1)
        let down = ScriptedSender(Array(repeating: unavailable, count: 30))
        await delivery.deliver(request, via: down)
        #expect(try await store.pushAttempts(callID: request.call.callID).first?.status == 503)
        let lastFailure = clock.now()
        let problem = try #require(health.current(at: lastFailure).first)
        #expect(problem.reason == "UNAVAILABLE" && problem.lastError == "HTTP 503" && problem.kind == .outage)
        #expect(problem.since == start && problem.count == down.sends.withLock { $0.count })
        // No send since: the outage is no longer news a minute after the last failure.
        #expect(!health.current(at: lastFailure.addingTimeInterval(59)).isEmpty)
        #expect(health.current(at: lastFailure.addingTimeInterval(60)).isEmpty)
    }

    @Test func aFailedAccessTokenGrantIsAnOutageAtOnce() async throws {
        let (_, health, clock, delivery, request) = try await fixture()
        var noToken = PushAnswer(
            status: nil, reason: "no FCM access token: no access token within 5.0 s", action: .retry(after: nil),
            requests: 0)
        noToken.credentialOutage = "TokenEndpointUnreachable"
        // One send without a token, then one that stops the push and says nothing about FCM.
        let sender = ScriptedSender([
            noToken, PushAnswer(status: nil, reason: "bug", action: .invalidRequest, requests: 0),
        ])
        await delivery.deliver(request, via: sender)
        #expect(sender.sends.withLock { $0.count } == 2)
        let problem = try #require(health.current(at: clock.now()).first)
        #expect(problem.reason == "TokenEndpointUnreachable" && problem.kind == .outage && problem.project == "demo")
        #expect(problem.count == 1)
        #expect(problem.lastError == "no FCM access token: no access token within 5.0 s")
        await delivery.deliver(request, via: ScriptedSender([]))
        #expect(health.current(at: clock.now()).isEmpty)
    }

    @Test func answersThatAreTheDevicesOrTheSetUpsShowTheProviderWorks() {
        func outcome(_ status: Int?, _ action: PushAction, requests: Int = 1) -> ProviderAttemptOutcome? {
            PushAnswer(status: status, reason: "R", action: action, requests: requests).providerOutcome
        }
        for status in [429, 500, 502, 503, 504] {
            #expect(
                outcome(status, .retry(after: nil)) == .failed(ProviderFailure(reason: "R", detail: "HTTP \(status)")))
        }
        #expect(
            PushAnswer(status: 503, reason: nil, action: .retry(after: nil), requests: 1).providerOutcome
                == .failed(ProviderFailure(reason: "HTTP 503", detail: "HTTP 503")))
        for (status, action) in [
            (200, PushAction.accepted), (410, .removeToken(invalidSince: nil)), (400, .flagDevice),
            (403, .configurationError), (400, .invalidRequest), (400, .retry(after: nil)),
        ] {
            #expect(outcome(status, action) == .answered, "\(status)")
        }
        // A refused client certificate: the provider answered, about the set-up.
        #expect(outcome(nil, .configurationError) == .answered)
        #expect(outcome(nil, .retry(after: nil)) == .failed(ProviderFailure(reason: "Unreachable", detail: "R")))
        // Nothing reached the provider: no evidence either way.
        #expect(outcome(nil, .retry(after: nil), requests: 0) == nil)
        #expect(outcome(nil, .invalidRequest) == nil)
    }

    @Test func aRefusedFreshProviderTokenPointsAtTheClock() {
        for reason in ["InvalidProviderToken", "ExpiredProviderToken"] {
            #expect(PushSetupHealth.hint(reason: reason, detail: nil)?.contains("server's clock") == true)
        }
        #expect(PushSetupHealth.hint(reason: "TopicDisallowed", detail: nil) == nil)
        #expect(PushSetupHealth.hint(reason: "Unreachable", detail: "connection refused") == nil)
        #expect(PushSetupHealth.hint(reason: "Unreachable", detail: "SSL: certificate has expired") != nil)
    }

    @Test func retryAfterIsWaitedOnTheServersClock() async throws {
        let (_, _, clock, delivery, request) = try await fixture()
        let sender = ScriptedSender([
            PushAnswer(status: 503, reason: "UNAVAILABLE", action: .retry(after: 5), requests: 1)
        ])
        await delivery.deliver(request, via: sender)
        #expect(clock.recordedSleeps == [5])
        #expect(sender.sends.withLock { $0.map(\.now) } == [start, start.addingTimeInterval(5)])
    }

    @Test func aScaledClockShortensEachSendsRealTimeoutToWhatIsLeftOfTheRing() async throws {
        let (_, _, _, delivery, request) = try await fixture(scale: 0.01)
        let sender = ScriptedSender([
            PushAnswer(status: 503, reason: "UNAVAILABLE", action: .retry(after: 15), requests: 1)
        ])
        await delivery.deliver(request, via: sender)
        let timeouts = sender.sends.withLock { $0.map(\.timeout) }
        #expect(timeouts.count == 2)
        #expect(abs(timeouts[0] - 0.45) < 1e-9)
        #expect(abs(timeouts[1] - 0.30) < 1e-9)
    }

    @Test func aDeadTokenIsRemovedUnlessRegisteredAgainAfterThePushWasSent() async throws {
        let (store, _, _, delivery, request) = try await fixture()
        await delivery.deliver(
            request,
            via: ScriptedSender([
                PushAnswer(
                    status: 404, reason: "UNREGISTERED",
                    action: .removeToken(invalidSince: nil), requests: 1)
            ]))
        #expect(try await store.devices(ofUser: "bob").isEmpty)

        // Registered again after the send began: the stale answer must not wipe it.
        let (fresh, _, _, freshDelivery, late) = try await fixture()
        var again = late.device
        again.updatedAt = start.addingTimeInterval(1)
        _ = try await fresh.registerDevice(again)
        await freshDelivery.deliver(
            late,
            via: ScriptedSender([
                PushAnswer(
                    status: 404, reason: "UNREGISTERED",
                    action: .removeToken(invalidSince: nil), requests: 1)
            ]))
        #expect(try await fresh.devices(ofUser: "bob").first?.fcmToken == "fcm-token-1")
    }

    @Test func aConfigurationErrorIsNotRetriedAndShowsInHealthUntilAPushIsAccepted() async throws {
        let (_, health, clock, delivery, request) = try await fixture()
        let sender = ScriptedSender([
            PushAnswer(status: 403, reason: "SENDER_ID_MISMATCH", action: .configurationError, requests: 1)
        ])
        await delivery.deliver(request, via: sender)
        #expect(sender.sends.withLock { $0.count } == 1)
        #expect(clock.recordedSleeps.isEmpty)
        #expect(health.current(at: start).map(\.reason) == ["SENDER_ID_MISMATCH"])
        #expect(health.current(at: start).first?.kind == .configuration)
        await delivery.deliver(request, via: ScriptedSender([]))
        #expect(health.current(at: start).isEmpty)
    }

    @Test func aDeviceWithoutATokenForTheProviderGetsNothing() async throws {
        let (store, _, _, delivery, request) = try await fixture()
        var ios = request
        ios.device.fcmToken = nil
        let sender = ScriptedSender([])
        await delivery.deliver(ios, via: sender)
        #expect(sender.sends.withLock { $0.isEmpty })
        #expect(try await store.pushAttempts(callID: request.call.callID).isEmpty)
    }
}
