import Foundation
import Testing

@testable import RingerWire

/// Ringer's JSON keys are snake_case; Swift spells the `ID` acronym in capitals (`callID`). The key strategies map
/// one to the other both ways, and agree with Foundation's snake_case conversion on every other name.
@Suite struct WireKeyTests {
    @Test(arguments: [
        ("callID", "call_id"), ("acceptedDeviceID", "accepted_device_id"), ("fcmProjectID", "fcm_project_id"),
        ("apnsID", "apns_id"), ("ringingDeviceIDs", "ringing_device_ids"), ("id", "id"), ("userID", "user_id"),
    ])
    func idWordsRoundTrip(_ name: String, _ key: String) {
        #expect(RingerJSON.snakeCase(name) == key)
        #expect(RingerJSON.camelCase(key) == name)
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

    /// A type whose property is `callID` reads and writes `call_id`.
    @Test func aCallIDPropertyIsTheCallIDKey() throws {
        struct Body: Codable, Equatable {
            var callID: String
            var declinedDeviceIDs: [String]
        }
        let body = Body(callID: "c", declinedDeviceIDs: ["d"])
        let data = try RingerJSON.encode(body)
        #expect(String(decoding: data, as: UTF8.self) == #"{"call_id":"c","declined_device_ids":["d"]}"#)
        #expect(try RingerJSON.decode(Body.self, from: data) == body)
    }
}
