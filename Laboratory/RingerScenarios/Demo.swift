public import Foundation
public import RingerSupport
import RingerSandbox
import RingerServer
import RingerWire

/// `ringer-lab demo`: alice calls bob, whose iPhone app is killed; the VoIP push wakes it, CallKit rings,
/// bob answers, the server hands out a media token, alice sees `call.accepted`, alice hangs up.
/// `ringer-lab demo --android`: the same call to bob's Android phone, whose app was swiped away; the
/// high-priority FCM message starts it, the ConnectionService rings (`Demo+Android.swift`).
///
/// Everything runs in this process over loopback sockets: the server, the APNs and FCM sandboxes
/// (HTTP/2 + TLS) and the simulated iPhones running RingerKit; with `--android`, bob's phone is the real Kotlin SDK
/// in the Android phone host, a JVM child process (`make -C android lab` builds it).
public enum Demo {
    /// The events a complete run must show (APNs' answer may come before or after the phone wakes).
    public static let requiredEvents = [
        "call.created", "apns.sent", "device.woken", "callkit.reported",
        "call.ringing", "call.accepted", "media.token", "call.ended",
    ]

    /// The events a complete `--android` run must show (FCM's answer may come before or after the app starts).
    public static let requiredAndroidEvents = [
        "call.created", "fcm.sent", "app.started", "connection.ringing",
        "call.ringing", "call.accepted", "media.token", "call.ended",
    ]

    /// Runs the demo and prints the timeline as it happens.
    /// - Parameters:
    ///   - json: print one JSON object per line instead of readable text.
    ///   - android: bob's phone is an Android phone (FCM, ConnectionService) in the Android phone host instead of an
    ///     iPhone; without the host built (`make -C android lab`) the run fails with `demo.failed` naming that.
    ///   - answerAfter: seconds bob lets it ring before answering.
    ///   - talkFor: seconds between the answer and alice hanging up.
    ///   - logger: server and sandbox logs.
    ///   - print: where lines go.
    /// - Returns: true only when the whole flow happened.
    public static func run(
        json: Bool, android: Bool = false, answerAfter: TimeInterval = 1.0, talkFor: TimeInterval = 1.0,
        logger: Logger = .silent(), print: @escaping @Sendable (String) -> Void
    ) async -> Bool {
        let timeline = Timeline { entry in print(json ? Timeline.json(entry) : Timeline.text(entry)) }
        if !json {
            let bob = android ? "whose Android app was swiped away" : "whose iPhone app is killed"
            print("Ringer demo: alice calls bob, \(bob). Times are ms since the call started.")
        }
        var options = LocalStack.Options()
        options.logger = logger
        options.observe = { observation in
            switch observation {
            case .callCreated(let call):
                timeline.record(
                    "call.created",
                    [
                        "call_id": call.callID, "caller": call.caller.id,
                        "callee": call.callee.id, "state": call.state.rawValue,
                    ])
            case .pushSent(let outcome) where outcome.provider == .fcm:
                timeline.record(
                    "fcm.sent",
                    ["priority": outcome.pushType.rawValue, "device": outcome.deviceID]
                        .merging(outcome.reason.map { ["reason": $0] } ?? [:]) { $1 },
                    numbers: [
                        "status": outcome.status.map(Double.init),
                        "latency_ms": (outcome.latencyMs * 10).rounded() / 10,
                    ])
            case .pushSent(let outcome):
                timeline.record(
                    "apns.sent",
                    [
                        "push_type": outcome.pushType.rawValue, "device": outcome.deviceID,
                        "apns_id": outcome.apnsID ?? "",
                    ].merging(outcome.reason.map { ["reason": $0] } ?? [:]) { $1 },
                    numbers: [
                        "status": outcome.status.map(Double.init),
                        "latency_ms": (outcome.latencyMs * 10).rounded() / 10,
                    ])
            default:
                break
            }
        }
        let stack: LocalStack
        do {
            stack = try await LocalStack.start(options)
        } catch {
            timeline.record("demo.failed", ["reason": "cannot start: \(error)"])
            return false
        }
        let ok = await callFlow(
            on: stack, timeline: timeline, json: json, android: android, answerAfter: answerAfter,
            talkFor: talkFor, print: print)
        await stack.shutdown()
        return ok
    }

    /// The scripted call on a running stack; true when every step happened.
    private static func callFlow(
        on stack: LocalStack, timeline: Timeline, json: Bool, android: Bool,
        answerAfter: TimeInterval, talkFor: TimeInterval,
        print: @escaping @Sendable (String) -> Void
    ) async -> Bool {
        do {
            let alice = try await stack.phone(
                user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore
            ) { observation in
                switch observation {
                case .event(let event) where event.type == .callRinging:
                    timeline.record("call.ringing", ["seen_by": "alice", "call_id": event.call.callID])
                case .event(let event) where event.type == .callAccepted:
                    timeline.record(
                        "call.accepted",
                        [
                            "seen_by": "alice", "call_id": event.call.callID,
                            "device": event.call.acceptedDeviceID ?? "",
                        ])
                case .mediaReady(let callID, let media):
                    timeline.record("media.token", ["party": "alice", "call_id": callID, "url": media.url])
                default:
                    break
                }
            }
            if android {
                try await androidCallee(on: stack, timeline: timeline, answerAfter: answerAfter)
            } else {
                try await iPhoneCallee(on: stack, timeline: timeline, answerAfter: answerAfter)
            }
            // Let alice's event stream settle so she sees every event of the call.
            _ = await waitUntil(timeout: 5) { alice.coordinator != nil }
            try await Task.sleep(for: .milliseconds(200))

            timeline.start()
            let call = try await alice.call("bob")
            guard await timeline.wait(for: "call.accepted", timeout: 15 + answerAfter) else {
                timeline.record("demo.failed", ["reason": "alice never saw call.accepted"])
                return false
            }
            try await Task.sleep(for: .seconds(talkFor))
            timeline.record("call.hangup", ["by": "alice", "call_id": call.callID])
            alice.hangUp(callID: call.callID)
            guard await timeline.wait(for: "call.ended", timeout: 10) else {
                timeline.record("demo.failed", ["reason": "bob's phone never ended the call"])
                return false
            }
            let seen = Set(timeline.entries.map(\.event))
            let missing = (android ? requiredAndroidEvents : requiredEvents).filter { !seen.contains($0) }
            guard missing.isEmpty, !seen.contains("app.killed"), !seen.contains("audio.refused"),
                !seen.contains("service.refused")
            else {
                timeline.record("demo.failed", ["reason": "missing \(missing.joined(separator: ", "))"])
                return false
            }
            if !json { print("Demo complete: every step happened.") }
            return true
        } catch {
            timeline.record("demo.failed", ["reason": "\(error)"])
            return false
        }
    }

    /// Bob's iPhone, its app killed; its timeline events are `device.woken`, `callkit.reported`,
    /// `callkit.answered`, `media.token`, `audio.started`, `call.ended` (and `app.killed`/`audio.refused` on a fault).
    private static func iPhoneCallee(on stack: LocalStack, timeline: Timeline, answerAfter: TimeInterval) async throws {
        let bob = try await stack.phone(
            user: "bob", name: "Bob", deviceID: "bob-iphone",
            behaviour: .answer(after: answerAfter)
        ) { observation in
            switch observation {
            case .woken(let apnsID):
                timeline.record("device.woken", ["device": "bob-iphone", "apns_id": apnsID])
            case .callKitReported(let callID):
                timeline.record("callkit.reported", ["device": "bob-iphone", "call_id": callID])
            case .userAnswered(let callID):
                timeline.record("callkit.answered", ["device": "bob-iphone", "call_id": callID])
            case .mediaReady(let callID, let media):
                timeline.record("media.token", ["party": "bob", "call_id": callID, "url": media.url])
            case .callKitEnded(let callID, let reason):
                timeline.record("call.ended", ["seen_by": "bob", "call_id": callID, "reason": reason.rawValue])
            case .killedBySystem(let reason):
                timeline.record("app.killed", ["device": "bob-iphone", "reason": reason])
            case .audioStarted(let callID):
                timeline.record("audio.started", ["device": "bob-iphone", "call_id": callID])
            case .audioRefused(let callID):
                timeline.record("audio.refused", ["device": "bob-iphone", "call_id": callID])
            default:
                break
            }
        }
        bob.setAppState(.killed)
    }

    static func waitUntil(timeout: TimeInterval, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
