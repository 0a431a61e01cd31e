import Foundation
import Testing

@testable import RingerWire

/// Ringer's JSON keys are snake_case; Swift spells the `ID` acronym in capitals (`callID`). Wire types name such keys
/// `callId` in their coding keys, and `RingerJSON.snakeCase` gives the same wire name from the Swift name.
@Suite struct WireKeyTests {
    @Test(arguments: [
        ("callID", "call_id"), ("acceptedDeviceID", "accepted_device_id"), ("fcmProjectID", "fcm_project_id"),
        ("apnsID", "apns_id"), ("ringingDeviceIDs", "ringing_device_ids"), ("id", "id"), ("userID", "user_id"),
    ])
    func idWordsRoundTrip(_ name: String, _ key: String) {
        #expect(RingerJSON.snakeCase(name) == key)
    }

    /// Names without `ID` are written and read as `convertToSnakeCase` and `convertFromSnakeCase` do.
    @Test func otherNamesMatchFoundationsSnakeCase() throws {
        struct Names: Codable, Equatable {
            var voipToken = 1, expiresAtMs = 2, urlValue = 4, http2Port = 5, hasVideo = 6, a = 7
            var pushProblem = 8, ttlSeconds = 9, nextBefore = 10
        }
        let foundation = JSONEncoder()
        foundation.keyEncodingStrategy = .convertToSnakeCase
        foundation.outputFormatting = .sortedKeys
        let data = try foundation.encode(Names())
        #expect(try RingerJSON.encoder().encode(Names()) == data)
        #expect(try RingerJSON.decoder().decode(Names.self, from: data) == Names())
        // Other acronyms are written as Foundation writes them (and, as with Foundation, need coding keys to be read).
        #expect(
            RingerJSON.snakeCase("mediaURL") == "media_url" && RingerJSON.snakeCase("mediaURLPath") == "media_url_path")
    }

    /// Wire types whose properties spell `ID` (`Call.callID`, `acceptedDeviceID`) read and write `call_id` and
    /// `accepted_device_id` through their coding keys, with Foundation's strategies.
    @Test func aCallIDPropertyIsTheCallIDKey() throws {
        let call = Call(
            callID: "c", state: .accepted, caller: Party(id: "alice"), callee: Party(id: "bob"), hasVideo: false,
            createdAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 30),
            acceptedDeviceID: "bob-iphone")
        let object = try #require(
            try JSONSerialization.jsonObject(with: RingerJSON.encode(call)) as? [String: Any])
        #expect(object["call_id"] as? String == "c" && object["accepted_device_id"] as? String == "bob-iphone")
        #expect(try RingerJSON.decode(Call.self, from: RingerJSON.encode(call)).acceptedDeviceID == "bob-iphone")
    }

    /// A group call's legs and policy travel as `legs[].accepted_device_id` and `answer_policy`; a 1:1 call's JSON
    /// carries neither key, so it is what it was before group calls (decision 0007 §2).
    @Test func aGroupCallsLegsUseWireKeysAndA1to1CallHasNone() throws {
        let start = Date(timeIntervalSince1970: 0)
        var call = Call(
            callID: "c", state: .ringing, caller: Party(id: "alice"), callee: Party(id: "bob"), hasVideo: false,
            createdAt: start, expiresAt: start.addingTimeInterval(45))
        let oneToOne = String(decoding: try RingerJSON.encode(call), as: UTF8.self)
        #expect(!oneToOne.contains("legs") && !oneToOne.contains("answer_policy"))
        #expect(!call.isGroup)
        call.legs = [
            CallLeg(
                user: Party(id: "bob", name: "Bob"), state: .accepted, rungAt: start,
                expiresAt: start.addingTimeInterval(45), ringingAt: start.addingTimeInterval(1),
                acceptedAt: start.addingTimeInterval(2), acceptedDeviceID: "bob-iphone"),
            CallLeg(
                user: Party(id: "carol"), state: .cancelled, rungAt: start, expiresAt: start.addingTimeInterval(45),
                endedAt: start.addingTimeInterval(2), endedBy: "bob"),
        ]
        call.answerPolicy = .firstAnswer
        let object = try #require(
            try JSONSerialization.jsonObject(with: RingerJSON.encode(call)) as? [String: Any])
        #expect(object["answer_policy"] as? String == "first_answer")
        let legs = try #require(object["legs"] as? [[String: Any]])
        #expect(
            Set(legs[0].keys) == [
                "user", "state", "rung_at", "expires_at", "ringing_at", "accepted_at",
                "accepted_device_id",
            ])
        #expect(legs[1]["ended_by"] as? String == "bob" && legs[1]["state"] as? String == "cancelled")
        let decoded = try RingerJSON.decode(Call.self, from: RingerJSON.encode(call))
        #expect(decoded == call && decoded.isGroup && decoded.leg(of: "bob")?.acceptedDeviceID == "bob-iphone")
        #expect(decoded.leg(of: "alice") == nil)
    }

    /// Values a newer server adds still decode: a leg state or policy this build does not know.
    @Test func unknownLegStatesAndPoliciesDecode() throws {
        let json = Data(
            #"{"user":{"id":"bob"},"state":"transferred","rung_at":"1970-01-01T00:00:00.000Z","expires_at":"1970-01-01T00:00:45.000Z"}"#
                .utf8)
        let leg = try RingerJSON.decode(CallLeg.self, from: json)
        #expect(leg.state == LegState(rawValue: "transferred") && !leg.state.isLive)
        #expect(
            try RingerJSON.decode(AnswerPolicy.self, from: Data(#""ring_in_turn""#.utf8)).rawValue == "ring_in_turn")
        #expect(LegState.ringing.isLive && LegState.accepted.isLive && !LegState.left.isLive)
    }

    /// A problem about a group's callee list names them under `callees`; a callee's conflict carries `leg_state`.
    @Test func aProblemNamesCalleesAndLegState() throws {
        let problem = Problem(
            type: ProblemType.duplicateCallee.rawValue, title: "Duplicate callee", status: 422, callees: ["bob"],
            legState: .left)
        let object = try #require(
            try JSONSerialization.jsonObject(with: RingerJSON.encode(problem)) as? [String: Any])
        #expect(object["callees"] as? [String] == ["bob"] && object["leg_state"] as? String == "left")
        #expect(try RingerJSON.decode(Problem.self, from: RingerJSON.encode(problem)) == problem)
    }
}
