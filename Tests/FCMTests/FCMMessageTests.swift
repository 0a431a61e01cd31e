import FCM
import Foundation
import Testing

/// The `messages:send` body Ringer builds, the TTL's Duration form, and the checks made before sending
/// (Google: "REST Resource: projects.messages", `AndroidConfig`).
@Suite struct FCMMessageTests {
    static func decoded(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func ringingBodyIsADataOnlyHighPriorityMessageToOneToken() throws {
        let message = FCMMessage(
            data: ["ringer": "{\"call_id\":\"c1\"}", "call_id": "c1"], priority: .high,
            ttl: .seconds(27), collapseKey: "c1", restrictedPackageName: "com.example.app")
        let body = try Self.decoded(message.requestBody(token: "tok:APA91b-x_y"))
        #expect(Set(body.keys) == ["message"])
        let inner = try #require(body["message"] as? [String: Any])
        #expect(Set(inner.keys) == ["token", "data", "android"])
        #expect(inner["token"] as? String == "tok:APA91b-x_y")
        #expect(inner["data"] as? [String: String] == ["ringer": "{\"call_id\":\"c1\"}", "call_id": "c1"])
        #expect(
            inner["android"] as? [String: String] == [
                "priority": "HIGH", "ttl": "27s", "collapse_key": "c1",
                "restricted_package_name": "com.example.app",
            ])
    }

    @Test func theBodyIsCompactSortedAndEscapesWhatJSONMustWithoutEscapingSlashes() throws {
        let message = FCMMessage(
            data: ["z": "a \"quote\", a \\ backslash, a / slash\nand a tab\t, é and 📞", "a": "first"],
            notification: .init(title: "Missed call", body: nil), priority: .normal, ttl: .milliseconds(1500))
        let text = String(decoding: try message.requestBody(token: "t", validateOnly: true), as: UTF8.self)
        #expect(
            text
                == #"{"message":{"android":{"priority":"NORMAL","ttl":"1.5s"},"data":{"a":"first","#
                + #""z":"a \"quote\", a \\ backslash, a / slash\nand a tab\t, é and 📞"},"#
                + #""notification":{"title":"Missed call"},"token":"t"},"validate_only":true}"#)
        // Whatever a value holds, a reader gets it back as it was.
        let inner = try #require(try Self.decoded(Array(text.utf8))["message"] as? [String: Any])
        #expect((inner["data"] as? [String: String])?["z"] == message.data["z"])
    }

    @Test func missedCallCarriesANotificationAtNormalPriority() throws {
        let message = FCMMessage(
            data: ["ringer": "{}"], notification: .init(title: "Missed call", body: "Alice"),
            priority: .normal)
        let inner = try #require(try Self.decoded(message.requestBody(token: "t"))["message"] as? [String: Any])
        #expect(inner["notification"] as? [String: String] == ["title": "Missed call", "body": "Alice"])
        #expect(inner["android"] as? [String: String] == ["priority": "NORMAL"])
    }

    @Test func validateOnlyIsSentOnlyWhenAsked() throws {
        let message = FCMMessage(data: ["k": "v"])
        #expect(try Self.decoded(message.requestBody(token: "t"))["validate_only"] == nil)
        #expect(try Self.decoded(message.requestBody(token: "t", validateOnly: true))["validate_only"] as? Bool == true)
    }

    @Test func valuesAreEscapedByTheJSONEncoderNotByHand() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t unicode ☎️ slash /"
        let message = FCMMessage(data: [tricky: tricky])
        let inner = try #require(try Self.decoded(message.requestBody(token: "t"))["message"] as? [String: Any])
        #expect(inner["data"] as? [String: String] == [tricky: tricky])
    }

    @Test(arguments: [
        (Duration.seconds(45), "45s"), (.milliseconds(3500), "3.5s"), (.zero, "0s"), (.nanoseconds(1), "0.000000001s"),
        (.milliseconds(1250), "1.25s"), (.seconds(2_419_200), "2419200s"), (.microseconds(10_000_100), "10.0001s"),
    ])
    func durationStringIsGooglesDurationForm(_ duration: Duration, _ text: String) {
        #expect(FCMMessage.durationString(duration) == text)
    }

    @Test(arguments: [
        (29.2, Duration.seconds(30)), (30.0, .seconds(30)), (1.0, .seconds(1)), (0.3, .seconds(1)), (0.0, .seconds(1)),
        (-5.0, .seconds(1)), (.nan, .seconds(1)), (.infinity, .seconds(1)), (1e12, .seconds(2_419_200)),
    ])
    func ringingTTLIsTheSecondsLeftRoundedUpAtLeastOne(_ secondsLeft: Double, _ ttl: Duration) {
        #expect(FCMMessage.ttl(forSecondsLeft: secondsLeft) == ttl)
    }

    @Test func dataPayloadBytesCountKeysAndValuesInUTF8() {
        #expect(FCMMessage(data: [:]).dataPayloadBytes == 0)
        #expect(FCMMessage(data: ["ab": "cde"]).dataPayloadBytes == 5)
        // "é" is 2 bytes, "☎️" (U+260E U+FE0F) 6: bytes, not characters or UTF-16 units.
        #expect(FCMMessage(data: ["é": "☎️", "x": ""]).dataPayloadBytes == 9)
    }

    @Test func payloadOfExactly4096BytesIsSentAndOneMoreIsRefused() throws {
        let fits = FCMMessage(data: ["ringer": String(repeating: "é", count: 2045)])  // 6 + 4090 bytes
        #expect(fits.dataPayloadBytes == 4096)
        _ = try fits.requestBody(token: "t")
        let over = FCMMessage(data: ["ringer": String(repeating: "é", count: 2045) + "x"])
        let error = #expect(throws: FCMClientError.payloadTooLarge) { try over.requestBody(token: "t") }
        #expect(error?.description.contains("4097") == true)
        #expect(error.map { FCMResponseAction.forFailure($0) } == .invalidRequest)
    }

    @Test(arguments: [
        "from", "notification", "message_type", "google.sent_time", "googleX", "gcm.notification.title", "gcm",
    ])
    func reservedDataKeysAreRefused(_ key: String) {
        #expect(throws: FCMClientError.reservedDataKey) { try FCMMessage(data: [key: "v"]).validate() }
    }

    @Test(arguments: ["fromage", "notifications", "my_google", "Google", "type", "call_id"])
    func ordinaryDataKeysAreAccepted(_ key: String) throws {
        try FCMMessage(data: [key: "v"]).validate()
    }

    @Test func ttlOutsideZeroToTwentyEightDaysIsRefused() throws {
        #expect(throws: FCMClientError.invalidTTL) { try FCMMessage(data: [:], ttl: .seconds(-1)).validate() }
        #expect(throws: FCMClientError.invalidTTL) { try FCMMessage(data: [:], ttl: .seconds(2_419_201)).validate() }
        try FCMMessage(data: [:], ttl: .zero).validate()
        try FCMMessage(data: [:], ttl: .seconds(2_419_200)).validate()
    }

    @Test(arguments: [
        "dX8Gx-8yTQ2k9lZ1w_aB:APA91bHqT3wVx-Ff9y_0Zx3", "a", String(repeating: "A", count: 4096), "abc.def",
    ])
    func plausibleRegistrationTokens(_ token: String) {
        #expect(FCMClient.isPlausibleRegistrationToken(token))
    }

    @Test(arguments: ["", "with space", "new\nline", "quote\"", "slash/", "émoji", String(repeating: "A", count: 4097)])
    func implausibleRegistrationTokens(_ token: String) {
        #expect(!FCMClient.isPlausibleRegistrationToken(token))
    }
}
