import APNs
import FCM
import Foundation
import RingerCore
import RingerSupport
import RingerWire
import RingerTestSupport
import Testing

@testable import RingerServer

/// Typed providers, push types and APNs environments change no byte of what the server writes: push records
/// (`GET /v1/calls/{id}/pushes`, the store), `/healthz` problems, observations and log lines.
@Suite struct PushRecordEncodingTests {
    let sentAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aPushRecordEncodesItsProviderAndPushTypeAsTheSameStrings() throws {
        let attempt = PushAttempt(
            callID: "c1", deviceID: "d1", provider: .apns, pushType: .voip, status: 200, reason: nil,
            apnsID: "a1", latencyMs: 12.5, attempts: 1, sentAt: sentAt)
        let json = String(decoding: try RingerJSON.encode(attempt), as: UTF8.self)
        #expect(
            json == #"{"apns_id":"a1","attempts":1,"call_id":"c1","device_id":"d1","latency_ms":12.5,"#
                + #""provider":"apns","push_type":"voip","sent_at":"2027-01-15T08:00:00.000Z","status":200}"#)
        // A record stored before (or by a newer server) reads back as the same values and writes the same bytes.
        let stored =
            #"{"attempts":2,"call_id":"c1","device_id":"d2","latency_ms":3,"message_name":"projects/p/messages/1","#
            + #""provider":"fcm","push_type":"normal","sent_at":"2027-01-15T08:00:00.000Z","status":200}"#
        let decoded = try RingerJSON.decoder().decode(PushAttempt.self, from: Data(stored.utf8))
        #expect(decoded.provider == .fcm && decoded.pushType == .normal)
        #expect(String(decoding: try RingerJSON.encode(decoded), as: UTF8.self) == stored)
        let unknown = try RingerJSON.decoder().decode(
            PushAttempt.self,
            from: Data(
                stored.replacingOccurrences(
                    of: #""provider":"fcm","push_type":"normal""#, with: #""provider":"webpush","push_type":"urgent""#
                ).utf8))
        #expect(unknown.provider.rawValue == "webpush" && unknown.pushType.rawValue == "urgent")
        // A group call's push names whose phone it went to; a 1:1 call's (above) has no such key.
        var group = attempt
        group.userID = "carol"
        #expect(String(decoding: try RingerJSON.encode(group), as: UTF8.self).contains(#""user_id":"carol""#))
        #expect(try RingerJSON.decoder().decode(PushAttempt.self, from: RingerJSON.encode(group)) == group)
    }

    @Test func eachSenderRecordsThePushTypesTheAPIDocuments() {
        #expect(
            [PushType(APNsPushType.voip), PushType(APNsPushType.alert), PushType(APNsPushType.background)].map(
                \.rawValue) == ["voip", "alert", "background"])
        #expect(
            [PushType(FCMMessage.Priority.high), PushType(FCMMessage.Priority.normal)].map(\.rawValue) == [
                "high", "normal",
            ])
        #expect(APNsPushSender.pushType(for: .ring) == .voip)
    }

    @Test func aHealthzProblemEncodesItsProviderAndEnvironmentAsTheSameStrings() throws {
        let health = PushSetupHealth()
        _ = health.record(
            PushScope(provider: .apns, environment: .sandbox, topic: "com.example.app.voip"),
            reason: "TopicDisallowed", at: sentAt)
        _ = health.record(
            PushScope(provider: .fcm, project: "ringer-demo"), reason: "SENDER_ID_MISMATCH",
            at: sentAt.addingTimeInterval(1))
        let json = String(
            decoding: try RingerJSON.encode(health.current(at: sentAt.addingTimeInterval(1))), as: UTF8.self)
        // The same bytes as before, and `kind` (added with provider outages).
        #expect(
            json
                == #"[{"count":1,"environment":"sandbox","kind":"configuration","provider":"apns","reason":"TopicDisallowed","#
                + #""since":"2027-01-15T08:00:00.000Z","topic":"com.example.app.voip"},"#
                + #"{"count":1,"kind":"configuration","project":"ringer-demo","provider":"fcm","reason":"SENDER_ID_MISMATCH","#
                + #""since":"2027-01-15T08:00:01.000Z"}]"#)
    }

    @Test func aProviderOutageEncodesAsAProblemOfKindOutageWithItsLastFailure() throws {
        let health = PushSetupHealth()
        let scope = PushScope(provider: .apns, environment: .production, topic: "com.example.app.voip")
        for second in 0..<3 {
            health.recordAttempt(
                .failed(ProviderFailure(reason: "ServiceUnavailable", detail: "HTTP 503")), scope: scope,
                at: sentAt.addingTimeInterval(Double(second)))
        }
        let json = String(
            decoding: try RingerJSON.encode(health.current(at: sentAt.addingTimeInterval(3))), as: UTF8.self)
        #expect(
            json == #"[{"count":3,"environment":"production","kind":"outage","last_error":"HTTP 503","#
                + #""last_failed_at":"2027-01-15T08:00:02.000Z","provider":"apns","reason":"ServiceUnavailable","#
                + #""since":"2027-01-15T08:00:00.000Z","topic":"com.example.app.voip"}]"#)
    }

    @Test func anOutageIsLoggedOnceWhenItStartsAndOnceWhenItEnds() {
        let handler = RecordingLogHandler()
        let health = PushSetupHealth(log: Logger(label: "test", level: .info, handler: handler))
        let scope = PushScope(provider: .fcm, project: "ringer-demo")
        for second in 0..<6 {
            health.recordAttempt(
                .failed(ProviderFailure(reason: "UNAVAILABLE", detail: "HTTP 503")), scope: scope,
                at: sentAt.addingTimeInterval(Double(second)))
        }
        health.recordAttempt(.answered, scope: scope, at: sentAt.addingTimeInterval(7))
        let events = handler.events.withLock { $0 }
        #expect(events.map(\.level) == [.error, .notice])
        #expect(events.first?.message.hasPrefix("fcm fails every send") == true)
        #expect(events.first?.metadata["fcm.project"]?.description == "ringer-demo")
        #expect(events.first?.metadata["push.reason"]?.description == "UNAVAILABLE")
        #expect(events.last?.message == "fcm answers again")
    }

    @Test func anFCMProjectTheStartUpCheckReportsShowsOnceWhenPushesFailTheSameWay() {
        let health = PushSetupHealth()
        let scope = PushScope(provider: .fcm, project: "ringer-demo")
        #expect(health.record(scope, reason: "TokenEndpointUnreachable", kind: .outage, at: sentAt))
        health.recordAttempt(
            .failed(ProviderFailure(reason: "TokenEndpointUnreachable", isConclusive: true)), scope: scope,
            at: sentAt.addingTimeInterval(1))
        #expect(health.current(at: sentAt.addingTimeInterval(1)).map(\.reason) == ["TokenEndpointUnreachable"])
        #expect(health.current(at: sentAt.addingTimeInterval(1)).first?.kind == .outage)
    }

    /// Keeps every log event.
    final class RecordingLogHandler: LogHandler {
        let events = LockedValue<[LogEvent]>([])
        func write(_ event: LogEvent) { events.withLock { $0.append(event) } }
    }

    @Test func logLinesAndObservationsNameTheProviderPushTypeAndEnvironmentAsBefore() async throws {
        let handler = RecordingLogHandler()
        let outcomes = LockedValue<[PushAttempt]>([])
        let deliveries = PushDeliveryTests()
        let (_, _, _, delivery, request) = try await deliveries.fixture(
            log: Logger(label: "test", level: .info, handler: handler),
            observe: { if case .pushSent(let outcome) = $0 { outcomes.withLock { $0.append(outcome) } } })
        let sender = PushDeliveryTests.ScriptedSender(
            [PushAnswer(status: 400, reason: "TopicDisallowed", action: .configurationError, requests: 1)],
            scope: PushScope(provider: .apns, environment: .sandbox, topic: "com.example.app.voip"), type: .voip)
        await delivery.deliver(request, via: sender)
        let refusal = try #require(handler.events.withLock { $0 }.first { $0.level == .error })
        #expect(
            refusal.message == "apns refuses the server's configuration; pushes to this scope fail until it is fixed")
        #expect(refusal.metadata["push.provider"]?.description == "apns")
        #expect(refusal.metadata["push.type"]?.description == "voip")
        #expect(refusal.metadata["apns.environment"]?.description == "sandbox")
        #expect(refusal.metadata["apns.topic"]?.description == "com.example.app.voip")
        // Observed once the store has the outcome, which `deliver` hands over without waiting (issue 33).
        #expect(await eventually { !outcomes.withLock { $0 }.isEmpty })
        let outcome = try #require(outcomes.withLock { $0 }.first)
        #expect(outcome.provider.rawValue == "apns" && outcome.pushType.rawValue == "voip")
    }
}
