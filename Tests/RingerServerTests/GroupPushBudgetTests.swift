// The ringing push of a group call names the other callees (decision 0007 §6): counted and capped so the `ringer`
// body stays within 3,072 bytes, which both providers take with room to spare. These tests build bodies at the limits
// the server accepts (ids of 128 bytes, names that escape to 320 bytes) and check them with the providers' own rules
// as the push senders apply them.
import APNs
import FCM
import Foundation
import RingerWire
import Testing

@testable import RingerServer

@Suite struct GroupPushBudgetTests {
    /// The longest id the API accepts.
    static func longID(_ tag: Character) -> String { String(repeating: tag, count: Identifier.maximumLength) }

    /// A display name the API accepts whose JSON is as long as any can be: 64 characters, each a quote (escaped to two
    /// bytes) with a three-byte combining mark, 256 bytes of UTF-8 and 320 on the wire.
    static let worstName = String(repeating: "\"\u{20D0}", count: DisplayName.maximumNameLength)

    static func body(caller: Party, calleeID: String) -> VoIPPush.Body {
        VoIPPush.Body(
            callID: UUID().uuidString.lowercased(), caller: caller, calleeID: calleeID, hasVideo: true,
            sentAt: 1_800_000_000_000, expiresAt: 1_800_000_045_000)
    }

    /// What FCM counts and what APNs counts, for one body, through the senders' own payloads.
    static func checkBothProviders(_ body: VoIPPush.Body) throws {
        let json = try RingerJSON.encode(body)
        let message = FCMMessage(data: ["ringer": String(decoding: json, as: UTF8.self)], priority: .high)
        try message.validate()
        #expect(message.dataPayloadBytes <= VoIPPush.Body.groupBodyBudgetBytes + 6)
        let voip = try RingerJSON.encode(VoIPPush(ringer: body))
        #expect(voip.count <= APNsPushType.voip.maximumPayloadBytes)
        #expect(voip.count <= VoIPPush.Body.groupBodyBudgetBytes + 11)
    }

    @Test func theWorstNameIsOneTheServerAccepts() throws {
        #expect(DisplayName.problem(Self.worstName) == nil)
        #expect(Self.worstName.utf8.count == DisplayName.maximumNameBytes)
        let escaped = try RingerJSON.encode(Self.worstName)
        #expect(escaped.count == 320 + 2)
    }

    @Test func atTheLimitsFourOthersAreNamedWithinTheBudget() throws {
        let caller = Party(id: Self.longID("a"), name: Self.worstName)
        var body = Self.body(caller: caller, calleeID: Self.longID("b"))
        let others = (0..<15).map { index in
            Party(id: String(format: "%03d", index) + Self.longID("c").dropFirst(3), name: Self.worstName)
        }
        body.setGroup(count: 16, others: others)
        let group = try #require(body.group)
        #expect(group.count == 16)
        #expect(group.others == Array(others.prefix(4)))
        let size = try RingerJSON.encode(body).count
        #expect(size <= VoIPPush.Body.groupBodyBudgetBytes)
        // One more would not fit: the cut is where the budget is, not earlier.
        var fifth = body
        fifth.group = VoIPPush.Group(count: 16, others: Array(others.prefix(5)))
        #expect(try RingerJSON.encode(fifth).count > VoIPPush.Body.groupBodyBudgetBytes)
        try Self.checkBothProviders(body)
    }

    @Test func everydayNamesAreNamedUpToEight() throws {
        var body = Self.body(caller: Party(id: "alice", name: "Alice Martin"), calleeID: "bob")
        let others = (1...12).map { Party(id: "user-\($0)", name: "Person Number \($0)") }
        body.setGroup(count: 13, others: others)
        #expect(body.group?.others == Array(others.prefix(VoIPPush.Body.maximumNamedOthers)))
        #expect(try RingerJSON.encode(body).count < 1024)
        try Self.checkBothProviders(body)
    }

    @Test func aGroupOfOneNamesNobodyAndCountsTheRecipient() throws {
        var body = Self.body(caller: Party(id: "alice"), calleeID: "bob")
        body.setGroup(count: 1, others: [])
        let object = try #require(
            try JSONSerialization.jsonObject(with: RingerJSON.encode(body)) as? [String: Any])
        let group = try #require(object["group"] as? [String: Any])
        #expect(group["count"] as? Int == 1 && (group["others"] as? [Any])?.isEmpty == true)
    }

    @Test func aOneToOneBodyHasNoGroupKey() throws {
        let text = String(
            decoding: try RingerJSON.encode(Self.body(caller: Party(id: "a"), calleeID: "b")), as: UTF8.self)
        #expect(!text.contains("group"))
        let decoded = try RingerJSON.decode(VoIPPush.Body.self, from: Data(text.utf8))
        #expect(decoded.group == nil)
    }

    @Test func aGroupBodyReadsBack() throws {
        var body = Self.body(caller: Party(id: "alice", name: "Alice"), calleeID: "bob")
        body.setGroup(count: 3, others: [Party(id: "carol", name: "Carol"), Party(id: "dave")])
        let json = try RingerJSON.encode(VoIPPush(ringer: body))
        #expect(
            String(decoding: json, as: UTF8.self).contains(
                #""group":{"count":3,"others":[{"id":"carol","name":"Carol"},{"id":"dave"}]}"#))
        #expect(try RingerJSON.decode(VoIPPush.self, from: json).ringer == body)
    }
}
