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
}
