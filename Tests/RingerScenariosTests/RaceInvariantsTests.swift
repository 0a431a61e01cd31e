import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerWire
import Testing

/// The race invariant checker fails: a hand-made record breaking each invariant is caught, and a
/// clean record of the same call is not.
@Suite struct RaceInvariantsTests {
    let origin = Date(timeIntervalSince1970: 1_800_000_000)
    let callID = "3a88a2b2-6953-4971-b1fc-edaed4cf8432"
    var uuid: UUID { UUID(uuidString: callID)! }

    func at(_ seconds: TimeInterval) -> Date { origin.addingTimeInterval(seconds) }

    /// Alice calls Bob, whose one iPhone rings from 0.5 s by push; nobody answers; the server ends the
    /// call `unanswered` at 8 s and both phones close it `unanswered`.
    func ringOut() -> RaceRecord {
        var call = Call(
            callID: callID, state: .unanswered, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: origin, expiresAt: at(8))
        call.endedAt = at(8)
        let bob = RaceRecord.Device(
            id: "bob-1", isCaller: false,
            callKit: [
                .init(at: at(0.5), change: .reported(uuid, accepted: true)),
                .init(at: at(8.1), change: .ended(uuid, .unanswered)),
            ],
            observed: [
                .init(at: at(0.5), .pushReceived(apnsID: "p1", disposition: .ringing)),
                .init(at: at(8.1), .event(event(.callUnanswered, call))),
            ],
            voipPushes: [.init(apnsID: "p1", sentAt: at(0.4))])
        let alice = RaceRecord.Device(
            id: "alice-phone", isCaller: true,
            observed: [.init(at: at(8.1), .callKitEnded(callID: callID, reason: .unanswered))])
        return RaceRecord(
            callID: callID, call: call, origin: origin, deadlineGrace: 2, immediate: 0.5, prompt: 2,
            settledAt: at(14), devices: [alice, bob])
    }

    func event(_ type: EventType, _ call: Call) -> CallEvent { CallEvent(seq: 2, type: type, call: call) }

    /// The violations of `invariant` in `record`, after checking the record is otherwise as clean as `ringOut`.
    func violations(_ record: RaceRecord, _ invariant: RaceViolation.Invariant) -> [String] {
        RaceInvariants.check(record).filter { $0.invariant == invariant }.map(\.detail)
    }

    @Test func aCleanRingOutKeepsEveryInvariant() {
        #expect(RaceInvariants.check(ringOut()).isEmpty)
    }

    @Test func aPushThatGotTheAppKilledOrNeverArrivedBreaksA() {
        var record = ringOut()
        record.devices[1].observed.append(.init(at: at(3), .killedBySystem(reason: "unreported VoIP push")))
        record.devices[1].voipPushes.append(.init(apnsID: "p2", sentAt: at(1)))
        let found = violations(record, .pushReported)
        #expect(found.contains { $0.contains("iOS killed the app at 3.00 s") }, "\(found)")
        #expect(found.contains { $0.contains("VoIP push p2") && $0.contains("never reached the app") }, "\(found)")

        // Held by APNs while the phone was off until after the push expired: rightly never delivered.
        record.devices[1].observed.removeLast()
        record.devices[1].power = [.init(at: at(0.9), on: false), .init(at: at(9), on: true)]
        #expect(violations(record, .pushReported).isEmpty)
    }

    @Test func twoNativeCallsForOneCallBreakB() {
        var record = ringOut()
        let other = UUID()
        record.devices[1].callKit.insert(.init(at: at(0.6), change: .reported(other, accepted: true)), at: 1)
        record.devices[1].callKit.append(.init(at: at(8.1), change: .ended(other, .unanswered)))
        let found = violations(record, .oneNativeCall)
        #expect(found.contains { $0.contains("a second native call \(other.uuidString.lowercased())") }, "\(found)")

        var twice = ringOut()
        twice.devices[1].callKit.insert(.init(at: at(0.6), change: .reported(uuid, accepted: true)), at: 1)
        #expect(violations(twice, .oneNativeCall).contains { $0.contains("2 native calls with the call's UUID") })

        // A push the app could not ring, reported and ended at once, is no second call.
        var flash = ringOut()
        flash.devices[1].callKit += [
            .init(at: at(9), change: .reported(other, accepted: true)),
            .init(at: at(9), change: .ended(other, .unanswered)),
        ]
        #expect(RaceInvariants.check(flash).isEmpty)
    }

    @Test func ringingAfterTheCallIsOverBreaksC() {
        var stillRinging = ringOut()
        stillRinging.devices[1].callKit.removeLast()
        stillRinging.devices[1].observed.removeLast()
        #expect(
            violations(stillRinging, .nothingRingsAfterEnd).contains {
                $0.contains("is still ringing when the run ended")
            })

        var late = ringOut()
        late.devices[1].callKit[1].at = at(13)
        late.devices[1].observed.removeLast()
        #expect(
            violations(late, .nothingRingsAfterEnd).contains { $0.contains("rang until 13.00 s, past the deadline") })

        var ignored = ringOut()
        ignored.devices[1].observed[1].at = at(5)
        let found = violations(ignored, .nothingRingsAfterEnd)
        #expect(found.contains { $0.contains("the event call.unanswered reached the app at 5.00 s") }, "\(found)")

        var afterDeadline = ringOut()
        afterDeadline.devices[1].callKit = [
            .init(at: at(9), change: .reported(uuid, accepted: true)),
            .init(at: at(10), change: .ended(uuid, .unanswered)),
        ]
        afterDeadline.devices[1].observed = [.init(at: at(9), .pushReceived(apnsID: "p1", disposition: .ringing))]
        #expect(
            violations(afterDeadline, .nothingRingsAfterEnd).contains {
                $0.contains("started ringing after the ring deadline")
            })

        var live = ringOut()
        live.call?.state = .accepted
        #expect(violations(live, .nothingRingsAfterEnd).contains { $0.contains("still accepted") })
    }

    @Test func aWrongOrMissingEndReasonBreaksD() {
        var wrong = ringOut()
        wrong.devices[1].callKit[1].change = .ended(uuid, .remoteEnded)
        #expect(
            violations(wrong, .endReasonAgrees).contains {
                $0.contains("ended remote_ended") && $0.contains("expected unanswered")
            })

        var failedAnswer = ringOut()
        failedAnswer.devices[1].callKit[1...] = [
            .init(at: at(5), change: .userAnswered(uuid)),
            .init(at: at(5.1), change: .answerCompleted(uuid, fulfilled: false)),
        ]
        failedAnswer.devices[1].observed.removeLast()
        #expect(violations(failedAnswer, .endReasonAgrees).contains { $0.contains("failed at 5.10 s") })

        var caller = ringOut()
        caller.devices[0].observed = [.init(at: at(8.1), .callKitEnded(callID: callID, reason: .remoteEnded))]
        #expect(violations(caller, .endReasonAgrees).contains { $0.contains("ended the call remote_ended") })

        var unsent = ringOut()
        unsent.devices[1].unacknowledgedHangUps = 1
        #expect(violations(unsent, .endReasonAgrees).contains { $0.contains("never acknowledged") })
    }

    @Test func aServerOutcomeNoUserCausedBreaksD() {
        // bob-1 answered and its answer was confirmed; bob-2's late decline is what ended the call.
        var record = ringOut()
        record.call?.state = .ended
        record.call?.endedBy = "bob"
        record.call?.acceptedDeviceID = "bob-1"
        let other = UUID()
        record.devices[1].callKit = [
            .init(at: at(0.5), change: .reported(uuid, accepted: true)),
            .init(at: at(3), change: .userAnswered(uuid)),
            .init(at: at(3.1), change: .answerCompleted(uuid, fulfilled: true)),
            .init(at: at(3.3), change: .ended(uuid, .remoteEnded)),
        ]
        record.devices[1].observed = [.init(at: at(0.5), .pushReceived(apnsID: "p1", disposition: .ringing))]
        record.devices.append(
            RaceRecord.Device(
                id: "bob-2", isCaller: false,
                callKit: [
                    .init(at: at(0.5), change: .reported(other, accepted: true)),
                    .init(at: at(3.2), change: .userEnded(other)),
                ]))
        record.devices[0].observed = [.init(at: at(3.3), .callKitEnded(callID: callID, reason: .remoteEnded))]
        let found = violations(record, .endReasonAgrees)
        #expect(
            found.contains { $0.contains("this device's user never hung up; users who ended it: bob-2") }, "\(found)")

        // Confirmed on bob-2 too: two devices think they answered.
        record.devices[2].callKit = [
            .init(at: at(0.5), change: .reported(uuid, accepted: true)),
            .init(at: at(3), change: .userAnswered(uuid)),
            .init(at: at(3.1), change: .answerCompleted(uuid, fulfilled: true)),
            .init(at: at(3.2), change: .userEnded(uuid)),
        ]
        #expect(violations(record, .endReasonAgrees).contains { $0.contains("its answer was confirmed at 3.10 s") })
    }

    /// An Android phone's event line at `seconds`, read as the phone host writes it (docs/android-phone-host.md,
    /// "Events").
    func androidEvent(_ seconds: TimeInterval, _ fields: [String: Any]) throws -> RaceRecord.AndroidObserved {
        var object = fields
        object["phone"] = "bob-1"
        object["t_ms"] = at(seconds).timeIntervalSince1970 * 1000
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let line = try JSONSerialization.data(withJSONObject: object)
        return RaceRecord.AndroidObserved(at: at(seconds), try decoder.decode(AndroidHostEvent.self, from: line))
    }

    /// The ring-out with Bob's phone an Android phone in the phone host: its ConnectionService rings from 0.5 s by an
    /// FCM message and ends MISSED when call.unanswered arrives.
    func androidRingOut() throws -> RaceRecord {
        var record = ringOut()
        var bob = RaceRecord.Device(id: "bob-1", isCaller: false)
        bob.platform = .android
        bob.androidObserved = [
            try androidEvent(0.5, ["event": "ringing", "call_id": callID, "presentation": "heads_up"]),
            try androidEvent(
                8.1, ["event": "event", "seq": 2, "type": "call.unanswered", "call_id": callID, "state": "unanswered"]),
            try androidEvent(8.1, ["event": "call_ended", "call_id": callID, "cause": "MISSED", "reason": NSNull()]),
        ]
        bob.fcmMessages = [.init(name: "m1", acceptedAt: at(0.4), expiresAt: at(8), fate: .delivered(.userVisible))]
        record.devices[1] = bob
        return record
    }

    @Test func aCleanAndroidRingOutKeepsEveryInvariant() throws {
        let record = try androidRingOut()
        #expect(RaceInvariants.check(record).isEmpty, "\(RaceInvariants.check(record))")
    }

    @Test func anFCMMessageStillHeldOrWithheldWithoutCauseBreaksA() throws {
        var record = try androidRingOut()
        record.devices[1].fcmMessages.append(.init(name: "m2", acceptedAt: at(1), expiresAt: at(8), fate: .stored))
        record.devices[1].fcmMessages.append(
            .init(
                name: "m3", acceptedAt: at(1), expiresAt: at(8),
                fate: .delivered(.notDelivered("the app's process ended"))))
        let found = violations(record, .pushReported)
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.contains("still stored") })
        #expect(found.contains { $0.contains("never reached the app") })
        // Force-stopped: Android rightly withheld it.
        record.devices[1].fcmMessages.removeLast(2)
        record.devices[1].fcmMessages.append(
            .init(
                name: "m4", acceptedAt: at(1), expiresAt: at(8),
                fate: .delivered(.notDelivered("the app is force-stopped: …"))))
        #expect(violations(record, .pushReported).isEmpty)
    }

    @Test func anAndroidConnectionRingingOnAfterTheEndOrEndingWronglyBreaksCAndD() throws {
        var ringing = try androidRingOut()
        ringing.devices[1].androidObserved.removeLast()
        let stayedUp = violations(ringing, .nothingRingsAfterEnd)
        #expect(stayedUp.contains { $0.contains("event call.unanswered") }, "\(stayedUp)")
        #expect(stayedUp.contains { $0.contains("still ringing") }, "\(stayedUp)")

        // The same end told by an FCM data message the app read as an update.
        var byMessage = try androidRingOut()
        byMessage.devices[1].androidObserved = [
            byMessage.devices[1].androidObserved[0],
            try androidEvent(
                8.1,
                [
                    "event": "message_received", "message": "m9", "priority": "HIGH", "outcome": "update",
                    "type": "call.unanswered", "call_id": callID,
                ]),
        ]
        let stayedUpAfterMessage = violations(byMessage, .nothingRingsAfterEnd)
        #expect(
            stayedUpAfterMessage.contains { $0.contains("FCM message call.unanswered") }, "\(stayedUpAfterMessage)")
        #expect(stayedUpAfterMessage.contains { $0.contains("still ringing") }, "\(stayedUpAfterMessage)")

        var wrong = try androidRingOut()
        wrong.devices[1].androidObserved[2] = try androidEvent(
            8.1, ["event": "call_ended", "call_id": callID, "cause": "ANSWERED_ELSEWHERE"])
        #expect(violations(wrong, .endReasonAgrees).contains { $0.contains("ended answered_elsewhere") })

        var rangTwice = try androidRingOut()
        rangTwice.devices[1].androidObserved.append(
            try androidEvent(9, ["event": "ringing", "call_id": callID, "presentation": "heads_up"]))
        #expect(!violations(rangTwice, .oneNativeCall).isEmpty, "\(RaceInvariants.check(rangTwice))")
    }

    @Test func anAndroidAnswerClosedWithABareErrorIsAFailedAnswer() throws {
        var record = try androidRingOut()
        record.devices[1].androidObserved = [
            try androidEvent(0.5, ["event": "ringing", "call_id": callID, "presentation": "heads_up"]),
            try androidEvent(7.9, ["event": "user_answered", "call_id": callID]),
            try androidEvent(8.1, ["event": "call_ended", "call_id": callID, "cause": "ERROR"]),
        ]
        #expect(violations(record, .endReasonAgrees).contains { $0.contains("failed at 8.10 s") })
        // The user's own decline is no remote ending to judge.
        record.devices[1].androidObserved[1] = try androidEvent(7.9, ["event": "user_declined", "call_id": callID])
        record.devices[1].androidObserved[2] = try androidEvent(
            7.9, ["event": "call_ended", "call_id": callID, "cause": "REJECTED"])
        #expect(violations(record, .endReasonAgrees).isEmpty, "\(violations(record, .endReasonAgrees))")
    }

    @Test func anAnswerTheServerNeverTookEndsAnswerNotDeliveredOnlyWhenTheUserAnswered() throws {
        var record = try androidRingOut()
        record.devices[1].androidObserved[2] = try androidEvent(
            8.1, ["event": "call_ended", "call_id": callID, "cause": "ERROR", "reason": "answer not delivered"])
        #expect(
            violations(record, .endReasonAgrees).contains { $0.contains("ended answer_not_delivered") },
            "nobody answered: the call was missed")
        record.devices[1].androidObserved.insert(
            try androidEvent(7.5, ["event": "user_answered", "call_id": callID]), at: 1)
        #expect(violations(record, .endReasonAgrees).isEmpty, "\(violations(record, .endReasonAgrees))")
    }
}

/// The group call checks: each callee's phones are judged by that callee's leg, and the legs themselves (e).
@Suite struct GroupRaceInvariantsTests {
    let base = RaceInvariantsTests()
    var uuid: UUID { base.uuid }
    func at(_ seconds: TimeInterval) -> Date { base.at(seconds) }

    /// Alice rings bob and carol (first_answer); both iPhones ring from 0.5 s; bob answers at 2 s, carol's phone ends
    /// `answered_elsewhere`; Alice hangs up at 5 s and bob's phone ends `remote_ended`.
    func answeredByBob() -> RaceRecord {
        var call = Call(
            callID: base.callID, state: .ended, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: at(0), expiresAt: at(8))
        call.acceptedAt = at(2)
        call.acceptedDeviceID = "bob-1"
        call.endedAt = at(5)
        call.endedBy = "alice"
        call.answerPolicy = .firstAnswer
        call.legs = [
            CallLeg(
                user: Party(id: "bob"), state: .left, rungAt: at(0), expiresAt: at(8), acceptedAt: at(2),
                acceptedDeviceID: "bob-1", endedAt: at(5), endedBy: "alice"),
            CallLeg(
                user: Party(id: "carol"), state: .cancelled, rungAt: at(0), expiresAt: at(8), endedAt: at(2),
                endedBy: "bob"),
        ]
        var carolView = call
        carolView.callee = Party(id: "carol")
        carolView.acceptedDeviceID = nil
        func phone(_ id: String, _ user: String, _ history: [SimulatedCallKit.Moment]) -> RaceRecord.Device {
            var device = RaceRecord.Device(
                id: id, isCaller: false, callKit: history,
                observed: [.init(at: at(0.5), .pushReceived(apnsID: "p-\(id)", disposition: .ringing))],
                voipPushes: [.init(apnsID: "p-\(id)", sentAt: at(0.4))])
            device.user = user
            return device
        }
        let bob = phone(
            "bob-1", "bob",
            [
                .init(at: at(0.5), change: .reported(uuid, accepted: true)),
                .init(at: at(2), change: .userAnswered(uuid)),
                .init(at: at(2.1), change: .answerCompleted(uuid, fulfilled: true)),
                .init(at: at(5.1), change: .ended(uuid, .remoteEnded)),
            ])
        let carol = phone(
            "carol-1", "carol",
            [
                .init(at: at(0.5), change: .reported(uuid, accepted: true)),
                .init(at: at(2.1), change: .ended(uuid, .answeredElsewhere)),
            ])
        let alice = RaceRecord.Device(id: "alice-phone", isCaller: true, hangUps: [at(5)])
        var record = RaceRecord(
            callID: base.callID, call: call, origin: at(0), deadlineGrace: 2, immediate: 0.5, prompt: 2,
            settledAt: at(14), devices: [alice, bob, carol])
        record.views = ["bob": call, "carol": carolView]
        return record
    }

    func violations(_ record: RaceRecord, _ invariant: RaceViolation.Invariant) -> [String] {
        base.violations(record, invariant)
    }

    @Test func aCleanFirstAnswerGroupCallKeepsEveryInvariant() {
        #expect(RaceInvariants.check(answeredByBob()).isEmpty, "\(RaceInvariants.check(answeredByBob()))")
    }

    @Test func twoAcceptedLegsUnderFirstAnswerOrALegLeftRingingBreakE() {
        var twice = answeredByBob()
        twice.call?.legs?[1].acceptedAt = at(2.05)
        twice.call?.legs?[1].acceptedDeviceID = "carol-1"
        #expect(
            violations(twice, .legsAgree).contains {
                $0.contains("2 legs were accepted: bob on bob-1, carol on carol-1")
            })
        // The same under all_may_join is what the policy asks for.
        twice.call?.answerPolicy = .allMayJoin
        #expect(violations(twice, .legsAgree).isEmpty)

        var ringing = answeredByBob()
        ringing.call?.legs?[1].state = .ringing
        #expect(violations(ringing, .legsAgree).contains { $0.contains("carol's leg is still ringing") })

        var stranger = answeredByBob()
        stranger.call?.acceptedDeviceID = "carol-1"
        #expect(violations(stranger, .legsAgree).contains { $0.contains("no leg was accepted on") })
    }

    @Test func aCalleesPhoneIsJudgedByTheirOwnLeg() {
        // Carol's phone ends as if she had answered: her leg says someone else did.
        var wrong = answeredByBob()
        wrong.devices[2].callKit[1].change = .ended(uuid, .remoteEnded)
        #expect(
            violations(wrong, .endReasonAgrees).contains {
                $0.contains("carol's leg reads ended") && $0.contains("expected answered_elsewhere")
            })

        // A loser of the race that still reads its call as live.
        var live = answeredByBob()
        live.views["carol"]?.state = .accepted
        #expect(violations(live, .nothingRingsAfterEnd).contains { $0.contains("carol's leg is still accepted") })

        // A callee rung in later rings past her own leg's end (the call's deadline is later than hers).
        var late = answeredByBob()
        late.views["carol"]?.endedAt = at(2)
        late.devices[2].callKit = [
            .init(at: at(3), change: .reported(uuid, accepted: true)),
            .init(at: at(7), change: .ended(uuid, .answeredElsewhere)),
        ]
        #expect(
            violations(late, .nothingRingsAfterEnd).contains {
                $0.contains("after carol's leg ended ended at 2.00 s, rang until 7.00 s")
            })
    }

    @Test func aLegEndedByAUserWhoDidNothingBreaksD() {
        // Carol's leg reads declined, but none of her phones declined.
        var record = answeredByBob()
        record.views["carol"]?.state = .declined
        #expect(violations(record, .endReasonAgrees).contains { $0.contains("no phone of carol's declined") })
    }
}
