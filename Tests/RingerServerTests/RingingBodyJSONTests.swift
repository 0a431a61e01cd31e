import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// The ringing push's body written with Jansson (issue 33) is the text Ringer's JSON encoder writes, byte for byte:
/// phones and the shared test vectors read one text whichever writer made it.
struct RingingBodyJSONTests {
    static let names: [String?] = [
        nil, "Alice", "Zoë Ångström", "李小龍", "O'Brien \"the\" \\ one / two", "emoji 📞🔔", "", "tab\tand\nline",
        String(repeating: "é", count: 160),
    ]

    static func bodies() -> [VoIPPush.Body] {
        var bodies: [VoIPPush.Body] = []
        for (index, name) in names.enumerated() {
            bodies.append(
                VoIPPush.Body(
                    callID: UUID().uuidString.lowercased(), caller: Party(id: "caller-\(index)", name: name),
                    calleeID: index.isMultiple(of: 3) ? nil : "callee.\(index)@example",
                    hasVideo: index.isMultiple(of: 2),
                    sentAt: 1_796_000_000_123 + Int64(index), expiresAt: 1_796_000_045_123,
                    waiting: index == 4 ? true : (index == 5 ? false : nil)))
        }
        var group = VoIPPush.Body(
            callID: UUID().uuidString.lowercased(), caller: Party(id: "alice", name: "Alice"), calleeID: "bob",
            hasVideo: false, sentAt: 1, expiresAt: 2)
        group.setGroup(count: 5, others: names.enumerated().map { Party(id: "other-\($0.offset)", name: $0.element) })
        bodies.append(group)
        var empty = group
        empty.setGroup(count: 1, others: [])
        bodies.append(empty)
        return bodies
    }

    @Test func theBodyIsTheEncodersTextByteForByte() throws {
        for body in Self.bodies() {
            let expected = Array(try RingerJSON.encode(body))
            let written = try #require(RingingBodyJSON.body(body))
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            let push = try #require(RingingBodyJSON.voipPush(body))
            #expect(push == Array(try RingerJSON.encode(VoIPPush(ringer: body))))
            #expect(try RingerJSON.decode(VoIPPush.self, from: Data(push)).ringer == body)
        }
    }
}
