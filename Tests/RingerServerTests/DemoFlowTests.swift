import Foundation
import RingerScenarios
import RingerSupport
import RingerTestSupport
import Testing

/// `ringer-lab demo` end to end, in process: the real server, the APNs sandbox over HTTP/2 + TLS and two
/// simulated iPhones, all over loopback; `--android`'s Bob is the real Kotlin SDK in the Android phone host (needs
/// `make -C android lab`).
@Suite(.serialized) struct DemoFlowTests {
    @Test func killedIPhoneRingsAndAnswersAndTheTimelineHasEveryStep() async throws {
        let lines = LockedValue<[String]>([])
        let ok = await Demo.run(json: true, answerAfter: 0.3, talkFor: 0.3) { line in lines.withLock { $0.append(line) }
        }
        let output = lines.withLock { $0 }
        #expect(ok, "\(output.joined(separator: "\n"))")
        var events: [String] = []
        var lastTime = -1
        for line in output {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let time = try #require(object["t_ms"] as? Int)
            #expect(time >= lastTime, "timeline goes forward")
            lastTime = time
            events.append(try #require(object["event"] as? String))
            if object["event"] as? String == "apns.sent" {
                #expect(object["status"] as? Int == 200)
                #expect(object["latency_ms"] is Double || object["latency_ms"] is Int)
                #expect(object["push_type"] as? String == "voip")
            }
        }
        for event in Demo.requiredEvents { #expect(events.contains(event), "missing \(event) in \(events)") }
        // Causal order (APNs' 200 may arrive before or after the phone wakes, so it is not ordered).
        let chain = ["call.created", "device.woken", "callkit.reported", "call.ringing", "call.accepted", "call.ended"]
        let positions = chain.compactMap { events.firstIndex(of: $0) }
        #expect(positions == positions.sorted(), "out of order: \(events)")
        if let media = events.firstIndex(of: "media.token"), let reported = events.firstIndex(of: "callkit.reported") {
            #expect(media > reported)
        }
        #expect(!events.contains("app.killed"))
        // Bob's media starts only after CallKit activated audio, and it does start.
        #expect(events.contains("audio.started"))
        #expect(!events.contains("audio.refused"))
    }

    @Test func swipedAwayAndroidAppIsStartedByFCMRingsAndAnswersAndTheTimelineHasEveryStep() async throws {
        let lines = LockedValue<[String]>([])
        let ok = await Demo.run(json: true, android: true, answerAfter: 0.3, talkFor: 0.3) { line in
            lines.withLock { $0.append(line) }
        }
        let output = lines.withLock { $0 }
        #expect(ok, "\(output.joined(separator: "\n"))")
        var objects: [[String: Any]] = []
        for line in output {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            objects.append(object)
        }
        // The phone's lines are stamped with the phone's own time and may be printed after later server events
        // (Timeline): the order of what happened is the order of `t_ms` (a stable sort keeps equal times as printed).
        objects = objects.enumerated().sorted { a, b in
            let (ta, tb) = (a.element["t_ms"] as? Int ?? 0, b.element["t_ms"] as? Int ?? 0)
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.element)
        let events = try objects.map { try #require($0["event"] as? String) }
        for event in Demo.requiredAndroidEvents { #expect(events.contains(event), "missing \(event) in \(events)") }
        #expect(!events.contains("apns.sent"), "no iPhone in this run: \(events)")
        let sent = try #require(objects.first { $0["event"] as? String == "fcm.sent" })
        #expect(sent["status"] as? Int == 200)
        #expect(sent["priority"] as? String == "high", "the ringing message is high priority")
        // Causal order (FCM's 200 may arrive before or after the app starts, so it is not ordered). The phone's
        // connection rings and the server's call.ringing both follow Telecom taking the report: the SDK tells the
        // server then, and the connection's ringing is written when Telecom shows it, so neither waits for the other.
        for chain in [
            [
                "call.created", "app.started", "connection.ringing", "connection.answered", "call.accepted",
                "call.hangup",
                "call.ended",
            ],
            ["app.started", "call.ringing", "call.accepted"],
        ] {
            let positions = chain.compactMap { events.firstIndex(of: $0) }
            #expect(positions.count == chain.count && positions == positions.sorted(), "out of order: \(events)")
        }
        let ended = try #require(objects.first { $0["event"] as? String == "call.ended" })
        #expect(ended["cause"] as? String == "REMOTE", "alice's hang-up ends bob's connection REMOTE")
        #expect(events.contains("audio.started"))
        #expect(!events.contains("service.refused") && !events.contains("message.not_delivered"))
    }

    @Test func theDemoCommandTakesAndroid() async throws {
        let ringer = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ringer-lab").path
        let run = try await ChildProcess.run([ringer, "demo", "--android"], timeout: 60)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("whose Android app was swiped away"))
        #expect(run.standardOutput.contains("connection.ringing "))
        #expect(run.standardOutput.contains("Demo complete"))
    }
}
