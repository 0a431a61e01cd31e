import Foundation
import RingerSandbox
import RingerScenarios
import RingerWire
import Testing

/// Scenario files are validated strictly before anything runs: each bad file is refused with a message
/// naming the file and the JSON path of the problem.
struct ScenarioValidationTests {
    /// A small valid scenario; each test breaks one thing in it.
    static let valid = """
        {
          "name": "valid",
          "users": [{"id": "alice"}, {"id": "bob", "name": "Bob"}],
          "devices": [
            {"id": "alice-iphone", "user": "alice"},
            {"id": "bob-iphone", "user": "bob", "app": "killed", "behaviour": {"answer_after": 2}}
          ],
          "timeline": [
            {"at": 0, "device": "alice-iphone", "action": "call", "callee": "bob"},
            {"at": 5, "device": "alice-iphone", "action": "hang_up"}
          ],
          "expect": {
            "calls": {"call": {"state": "ended", "devices": {"bob-iphone": {"rang": true}}}},
            "devices": {"alice-iphone": {"events": ["call.ringing"]}}
          }
        }
        """

    /// Parses `valid` with `old` replaced by `new` and returns the error.
    private func refusal(
        _ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> ScenarioFileError
    {
        #expect(
            Self.valid.contains(old), "the test's text to replace is not in the valid scenario",
            sourceLocation: sourceLocation)
        let text = Self.valid.replacingOccurrences(of: old, with: new)
        do {
            _ = try Scenario.parse(Data(text.utf8), file: "Scenarios/bad.json")
        } catch let error as ScenarioFileError {
            #expect(error.description.hasPrefix("Scenarios/bad.json: "), sourceLocation: sourceLocation)
            return error
        }
        Issue.record("the broken scenario was accepted", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    @Test func theValidScenarioIsAccepted() throws {
        let scenario = try Scenario.parse(Data(Self.valid.utf8), file: "valid.json")
        #expect(scenario.devices[1].app == .killed)
        #expect(scenario.devices[1].behaviour == .answer(after: 2))
        #expect(scenario.ringTimeout == 45)
        #expect(scenario.runUntil == 10)
        #expect(scenario.timeline[0].kind == .call(callee: "bob", label: "call"))
        #expect(scenario.expect.calls["call"]?.state == "ended")
        #expect(scenario.expect.appsKilled == 0)
    }

    @Test func unknownKeysAreRefusedWithTheirPathAndTheKnownKeys() throws {
        let top = try refusal(#""name": "valid","#, #""name": "valid", "expected": {},"#)
        #expect(top.path == "$.expected")
        #expect(top.message.contains("unknown key \"expected\""))

        let device = try refusal(#""app": "killed""#, #""ap": "killed""#)
        #expect(device.path == "$.devices[1].ap")
        #expect(device.message.contains("app") && device.message.contains("behaviour"), "\(device)")

        let nested = try refusal(#"{"rang": true}"#, #"{"rang": true, "rung": true}"#)
        #expect(nested.path == "$.expect.calls.call.devices.bob-iphone.rung")

        let step = try refusal(#""action": "hang_up"}"#, #""action": "hang_up", "callee": "bob"}"#)
        #expect(step.path == "$.timeline[1].callee", "a key of another action is unknown here: \(step)")
    }

    @Test func badValuesAreRefusedWithWhatWouldBeRight() throws {
        let app = try refusal(#""app": "killed""#, #""app": "asleep""#)
        #expect(app.path == "$.devices[1].app")
        #expect(app.message.contains("foreground, background, killed") && app.message.contains("\"asleep\""))

        let time = try refusal(#""at": 5"#, #""at": "5""#)
        #expect(time.path == "$.timeline[1].at")
        #expect(time.message.contains("number of seconds"))

        let negative = try refusal(#""answer_after": 2"#, #""answer_after": -1"#)
        #expect(negative.path == "$.devices[1].behaviour.answer_after")

        let flag = try refusal(#"{"rang": true}"#, #"{"rang": 1}"#)
        #expect(flag.message.contains("true or false"), "1 is not a boolean: \(flag)")

        let event = try refusal(#"["call.ringing"]"#, #"["call.ringing", "call.incomming"]"#)
        #expect(event.path == "$.expect.devices.alice-iphone.events[1]")

        let state = try refusal(#""state": "ended""#, #""state": "hung_up""#)
        #expect(state.path == "$.expect.calls.call.state")

        let reason = try refusal(#"{"rang": true}"#, #"{"end_reason": "busy"}"#)
        #expect(reason.path == "$.expect.calls.call.devices.bob-iphone.end_reason")

        let off = try refusal(#""app": "killed""#, #""app": "foreground", "phone": "off""#)
        #expect(off.message.contains("off runs no app"))
    }

    /// Group calls (issue 30): `callees` instead of `callee`, an answer policy, `ring_more`, and `legs` expectations.
    @Test func groupCallStepsAndLegsAreReadAndTheirMistakesRefused() throws {
        let group = Self.valid.replacingOccurrences(
            of: #""action": "call", "callee": "bob"}"#,
            with: #""action": "call", "callees": ["bob"], "answer_policy": "all_may_join"}"#
        ).replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with:
                #"{"at": 3, "device": "alice-iphone", "action": "ring_more", "callees": ["bob"]}, {"at": 5, "device": "alice-iphone", "action": "hang_up"}"#
        ).replacingOccurrences(
            of: #""state": "ended", "devices""#, with: #""state": "ended", "legs": {"bob": "left"}, "devices""#)
        let scenario = try Scenario.parse(Data(group.utf8), file: "group.json")
        #expect(scenario.timeline[0].kind == .groupCall(callees: ["bob"], policy: .allMayJoin, label: "call"))
        #expect(scenario.timeline[1].kind == .ringMore(callees: ["bob"], label: "call"))
        #expect(scenario.expect.calls["call"]?.legs == ["bob": .left])
        #expect(scenario.callLabels == ["call"])

        let both = try refusal(#""callee": "bob"}"#, #""callee": "bob", "callees": ["bob"]}"#)
        #expect(both.path == "$.timeline[0].callee")
        let stranger = try refusal(#""callee": "bob"}"#, #""callees": ["carol"]}"#)
        #expect(stranger.path == "$.timeline[0].callees[0]" && stranger.message.contains("carol"))
        let twice = try refusal(#""callee": "bob"}"#, #""callees": ["bob", "bob"]}"#)
        #expect(twice.message.contains("twice"))
        let policy = try refusal(#""callee": "bob"}"#, #""callees": ["bob"], "answer_policy": "ring_in_turn"}"#)
        #expect(policy.path == "$.timeline[0].answer_policy")
        let leg = try refusal(#""state": "ended", "devices""#, #""state": "ended", "legs": {"bob": "gone"}, "devices""#)
        #expect(leg.path == "$.expect.calls.call.legs.bob")
    }

    @Test func cellularCallAndHoldStepsAreReadAndTheirMistakesRefused() throws {
        let steps = Self.valid.replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with: #"{"at": 2, "device": "bob-iphone", "action": "cellular_call", "answer": "hold_and_accept"}, "#
                + #"{"at": 3, "device": "bob-iphone", "action": "cellular_call_ends"}, "#
                + #"{"at": 4, "device": "bob-iphone", "action": "resume"}, "#
                + #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#
        ).replacingOccurrences(of: #"{"rang": true}"#, with: #"{"rang": true, "was_held": true, "held": false}"#)
        let scenario = try Scenario.parse(Data(steps.utf8), file: "hold.json")
        #expect(scenario.timeline[1].kind == .cellularCall(answer: .holdAndAccept))
        #expect(scenario.timeline[2].kind == .cellularCallEnds)
        #expect(scenario.timeline[3].kind == .hold(label: "call", held: false))
        #expect(scenario.expect.calls["call"]?.devices["bob-iphone"]?.wasHeld == true)
        #expect(scenario.expect.calls["call"]?.devices["bob-iphone"]?.held == false)

        let unanswered = try refusal(#""action": "hang_up"}"#, #""action": "cellular_call"}"#)
        #expect(unanswered.message.contains("hold_and_accept"), "\(unanswered)")
        let choice = try refusal(#""action": "hang_up"}"#, #""action": "cellular_call", "answer": "swap"}"#)
        #expect(choice.path == "$.timeline[1].answer")
        let onAndroid = Self.valid.replacingOccurrences(
            of: #""app": "killed", "behaviour""#, with: #""platform": "android", "app": "swiped_away", "behaviour""#
        ).replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with: #"{"at": 5, "device": "bob-iphone", "action": "mute"}"#)
        #expect {
            try Scenario.parse(Data(onAndroid.utf8), file: "hold.json")
        } throws: { error in
            let error = error as? ScenarioFileError
            return error?.path == "$.timeline[1].device" && error?.message.contains("iPhone action") == true
        }
        // A SIM call and the app's own hold button are Android's too.
        let simCall = onAndroid.replacingOccurrences(
            of: #"{"at": 5, "device": "bob-iphone", "action": "mute"}"#,
            with: #"{"at": 5, "device": "bob-iphone", "action": "cellular_call", "answer": "hold_and_accept"}, "#
                + #"{"at": 6, "device": "bob-iphone", "action": "resume"}"#)
        let android = try Scenario.parse(Data(simCall.utf8), file: "sim.json")
        #expect(android.timeline[1].kind == .cellularCall(answer: .holdAndAccept))
        #expect(android.timeline[2].kind == .hold(label: "call", held: false))
    }

    @Test func muteAndKeypadStepsAreReadAndTheirMistakesRefused() throws {
        let steps = Self.valid.replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with: #"{"at": 2, "device": "bob-iphone", "action": "mute"}, "#
                + #"{"at": 3, "device": "bob-iphone", "action": "keypad", "digits": "12*#AD"}, "#
                + #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#
        ).replacingOccurrences(of: #"{"rang": true}"#, with: #"{"rang": true, "muted": true, "tones": "12*#AD"}"#)
        let scenario = try Scenario.parse(Data(steps.utf8), file: "mute.json")
        #expect(scenario.timeline[1].kind == .mute(label: "call", muted: true))
        #expect(scenario.timeline[2].kind == .keypad(label: "call", digits: "12*#AD"))
        #expect(scenario.expect.calls["call"]?.devices["bob-iphone"]?.muted == true)
        #expect(scenario.expect.calls["call"]?.devices["bob-iphone"]?.tones == "12*#AD")

        for digits in [#""digits": "1,2""#, #""digits": "a""#, #""digits": """#, #""digits": 5"#] {
            let refused = try refusal(#""action": "hang_up"}"#, #""action": "keypad", "# + digits + "}")
            #expect(refused.path == "$.timeline[1].digits", "\(digits): \(refused)")
        }
        let missing = try refusal(#""action": "hang_up"}"#, #""action": "keypad"}"#)
        #expect(missing.message.contains("keypad keys"), "\(missing)")
    }

    @Test func aCallBackFromRecentsIsReadAsANewCallAndRefusedWhereItDoesNotBelong() throws {
        let step = Self.valid.replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}, "#
                + #"{"at": 8, "device": "bob-iphone", "action": "call_back", "call": "back"}"#)
        let scenario = try Scenario.parse(Data(step.utf8), file: "back.json")
        #expect(scenario.timeline.last?.kind == .callBack(label: "back"))
        let taken = try refusal(#""action": "hang_up"}"#, #""action": "call_back", "call": "call"}"#)
        #expect(taken.path == "$.timeline[1].call")
        let onAndroid = step.replacingOccurrences(
            of: #""app": "killed", "behaviour""#, with: #""platform": "android", "app": "swiped_away", "behaviour""#)
        #expect {
            try Scenario.parse(Data(onAndroid.utf8), file: "back.json")
        } throws: { error in
            (error as? ScenarioFileError)?.message.contains("iPhone action") == true
        }
    }

    @Test func referencesMustNameDeclaredThings() throws {
        let callee = try refusal(#""callee": "bob""#, #""callee": "carol""#)
        #expect(callee.path == "$.timeline[0].callee")
        #expect(callee.message.contains("no user \"carol\""))

        let owner = try refusal(#""user": "bob""#, #""user": "dave""#)
        #expect(owner.path == "$.devices[1].user")

        let device = try refusal(#""devices": {"alice-iphone""#, #""devices": {"alice-ipad""#)
        #expect(device.path == "$.expect.devices.alice-ipad")

        let call = try refusal(#""action": "hang_up"}"#, #""action": "hang_up", "call": "other"}"#)
        #expect(call.path == "$.timeline[1].call")
        #expect(call.message.contains("placed so far: call"))

        let expected = try refusal(#""calls": {"call": "#, #""calls": {"second": "#)
        #expect(expected.path == "$.expect.calls.second")

        let selfCall = try refusal(#""callee": "bob""#, #""callee": "alice""#)
        #expect(selfCall.message.contains("cannot call themselves"))
    }

    @Test func nodesAndNodeStepsAreCheckedAgainstTheScenariosNodeCount() throws {
        let cluster = Self.valid.replacingOccurrences(of: #""name": "valid","#, with: #""name": "valid", "nodes": 2,"#)
            .replacingOccurrences(
                of: #"{"id": "alice-iphone", "user": "alice"}"#,
                with: #"{"id": "alice-iphone", "user": "alice", "node": 1}"#
            )
            .replacingOccurrences(
                of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
                with: #"{"at": 3, "action": "kill_node", "node": 0}, {"at": 4, "action": "start_node", "node": 0}, "#
                    + #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#)
        let scenario = try Scenario.parse(Data(cluster.utf8), file: "cluster.json")
        #expect(scenario.nodes == 2)
        #expect(scenario.devices[0].node == 1 && scenario.devices[1].node == nil)
        #expect(scenario.timeline[1].kind == .killNode(0) && scenario.timeline[2].kind == .startNode(0))
        #expect(scenario.timeline[1].summary == "kill node-0")
        #expect(try Scenario.parse(Data(Self.valid.utf8), file: "valid.json").nodes == 1)

        let tooMany = try refusal(#""name": "valid","#, #""name": "valid", "nodes": 10,"#)
        #expect(tooMany.path == "$.nodes" && tooMany.message.contains("between 1 and 9"))
        let noNode = try refusal(
            #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#, #"{"at": 5, "action": "kill_node"}"#)
        #expect(noNode.message.contains("missing required key \"node\""))
        // One node unless the file says more: node 1 does not exist.
        let beyond = try refusal(
            #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            #"{"at": 5, "action": "start_node", "node": 1}"#)
        #expect(beyond.path == "$.timeline[1].node" && beyond.message.contains("raise \"nodes\""), "\(beyond)")
        let device = try refusal(
            #"{"id": "alice-iphone", "user": "alice"}"#, #"{"id": "alice-iphone", "user": "alice", "node": 2}"#)
        #expect(device.path == "$.devices[0].node")
    }

    @Test func aScenarioForMoreNodesThanTheRunHasFailsSayingHowToRunIt() async throws {
        let cluster = Self.valid.replacingOccurrences(of: #""name": "valid","#, with: #""name": "valid", "nodes": 3,"#)
        let result = await ScenarioRunner(timeScale: 0.01).run(
            try Scenario.parse(Data(cluster.utf8), file: "cluster.json"))
        #expect(!result.passed)
        #expect(
            result.mismatches == [
                "the scenario needs 3 server nodes and the run has 1: run it with --nodes 3 --database … --redis …"
            ])
    }

    @Test func structuralMistakesAreRefused() throws {
        let range = try refusal(#"{"at": 5, "#, #"{"at": 4000, "#)
        #expect(range.path == "$.timeline[1].at")
        #expect(range.message.contains("between 0 and 3600"))
        let late = try refusal(#"{"at": 0, "#, #"{"at": 9, "#)
        #expect(late.message.contains("time order"))

        let missing = try refusal(#""name": "valid","#, "")
        #expect(missing.path == "$")
        #expect(missing.message.contains("\"name\""))

        let both = try refusal(#"{"events": ["call.ringing"]}"#, #"{"events": [], "events_in_order": []}"#)
        #expect(both.message.contains("not both"))

        let nested = try refusal(
            #""state": "ended","#,
            #""state": "ended", "one_of": [{"state": "ended", "one_of": []}, {}],"#)
        #expect(nested.path == "$.expect.calls.call.one_of[0].one_of", "alternatives do not nest: \(nested)")

        let early = try refusal(#""expect": {"#, #""run_until": 2, "expect": {"#)
        #expect(early.path == "$.run_until")
    }

    @Test func aFileThatIsNotJSONOrNotThereIsRefused() throws {
        #expect(throws: ScenarioFileError.self) { try Scenario.parse(Data("{\"name\": ".utf8), file: "x.json") }
        do {
            _ = try Scenario.parse(Data("[1, 2".utf8), file: "x.json")
        } catch let error as ScenarioFileError {
            #expect(error.description.hasPrefix("x.json: $: not valid JSON"))
            #expect(!error.isInvalidScenario)
        }
        do {
            _ = try Scenario.load(path: "/nonexistent/scenario.json")
            Issue.record("a missing file was loaded")
        } catch let error as ScenarioFileError {
            #expect(error.description.contains("/nonexistent/scenario.json"))
        }
        #expect(throws: ScenarioFileError.self) { try Scenario.files(in: ["/nonexistent-folder"]) }
    }

    @Test func androidPhonesAreReadWithTheirStatesPermissionsAndFaults() throws {
        let text = Self.valid.replacingOccurrences(
            of: #"{"id": "bob-iphone", "user": "bob", "app": "killed","#,
            with: """
                {"id": "bob-pixel", "user": "bob", "platform": "android", "app": "swiped_away", "dozing": true, "locked": true,
                 "call_ui": "core_telecom",
                 "permissions": {"use_full_screen_intent": false}, "fcm_faults": [{"code": "UNAVAILABLE", "retry_after": 5},
                 {"code": "QUOTA_EXCEEDED", "persistent": true}],
                """
        ).replacingOccurrences(
            of: #""devices": {"bob-iphone": {"rang": true}}"#,
            with:
                #""devices": {"bob-pixel": {"rang": true, "shown": "heads_up", "disconnect_cause": ["MISSED", null], "push_outcome": {"status": 503, "reason": "UNAVAILABLE", "attempts": 2}}}"#
        )
        .replacingOccurrences(
            of: #"{"at": 5, "device": "alice-iphone", "action": "hang_up"}"#,
            with:
                #"{"at": 1, "device": "bob-pixel", "action": "doze"}, {"at": 2, "device": "bob-pixel", "action": "fcm_fault", "code": "INTERNAL", "count": 2}, {"at": 5, "device": "alice-iphone", "action": "hang_up"}"#
        )
        let scenario = try Scenario.parse(Data(text.utf8), file: "android.json")
        let pixel = scenario.devices[1]
        #expect(pixel.platform == .android)
        #expect(pixel.app == .swipedAway)
        #expect(pixel.dozing && pixel.locked)
        #expect(pixel.callUI == .coreTelecom)
        #expect(scenario.devices[0].callUI == .connectionService, "the SDK's default")
        #expect(!pixel.permissions.contains(.useFullScreenIntent) && pixel.permissions.contains(.postNotifications))
        #expect(
            pixel.fcmFaults == [
                .init(code: "UNAVAILABLE", retryAfter: 5, count: 1), .init(code: "QUOTA_EXCEEDED", count: nil),
            ])
        #expect(scenario.timeline[1].kind == .doze)
        #expect(scenario.timeline[2].kind == .fcmFault(.init(code: "INTERNAL", count: 2)))
        let expected = scenario.expect.calls["call"]?.devices["bob-pixel"]
        #expect(expected?.shown == .some("heads_up"))
        #expect(expected?.disconnectCause == ["MISSED", nil])
        #expect(expected?.pushOutcome == .some(.init(status: .some(503), reason: .some("UNAVAILABLE"), attempts: 2)))
    }

    @Test func androidKeysAndActionsAreRefusedWhereTheyDoNotBelong() throws {
        let killed = try refusal(#""app": "killed""#, #""platform": "android", "app": "killed""#)
        #expect(killed.path == "$.devices[1].app")
        #expect(killed.message.contains("swiped_away") && killed.message.contains("force_stopped"), "\(killed)")

        let doze = try refusal(#""app": "killed""#, #""app": "killed", "dozing": true"#)
        #expect(doze.path == "$.devices[1].dozing")
        #expect(doze.message.contains("only an Android phone"))

        let action = try refusal(#""action": "hang_up"}"#, #""action": "doze"}"#)
        #expect(action.path == "$.timeline[1].device")
        #expect(action.message.contains("Android action"))

        let shown = try refusal(#"{"rang": true}"#, #"{"shown": "heads_up"}"#)
        #expect(shown.path == "$.expect.calls.call.devices.bob-iphone.shown")

        let code = try refusal(#""app": "killed""#, #""platform": "android", "fcm_faults": [{"code": "NOT_A_CODE"}]"#)
        #expect(code.path == "$.devices[1].fcm_faults[0].code")
        #expect(code.message.contains("UNAVAILABLE"))

        let callUI = try refusal(#""app": "killed""#, #""app": "killed", "call_ui": "core_telecom""#)
        #expect(callUI.path == "$.devices[1].call_ui")
        #expect(callUI.message.contains("only an Android phone"))
        let unknownUI = try refusal(#""app": "killed""#, #""platform": "android", "call_ui": "callkit""#)
        #expect(unknownUI.path == "$.devices[1].call_ui")
        #expect(unknownUI.message.contains("core_telecom"))

        let permission = try refusal(#""app": "killed""#, #""platform": "android", "permissions": {"camera": false}"#)
        #expect(permission.path == "$.devices[1].permissions.camera")

        let cause = try refusal(#"{"rang": true}"#, #"{"rang": true, "push_outcome": {"status": 1000}}"#)
        #expect(cause.path == "$.expect.calls.call.devices.bob-iphone.push_outcome.status")
    }
}
