import APNs
import FCM
import Foundation
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// Display names are limited in bytes and free of control characters, so every call can ring: a name travels
/// in each ringing push, whose providers limit payloads in bytes; tokens with control characters are refused,
/// never stored cut short (issue 12, items 5 and 7).
@Suite struct NameLimitsTests {
    /// 64 family emoji: 64 characters, 1,600 bytes of UTF-8.
    static let familyEmoji = String(
        repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", count: 64)

    @Test func aNameOf64CharactersButOver256BytesIsRefusedAndNothingStored() async throws {
        #expect(Self.familyEmoji.count == 64 && Self.familyEmoji.utf8.count == 1600)
        try await APITests.withServer { http in
            let response = try await http.send(
                "POST", "/v1/tokens", token: APITests.adminKey,
                json: #"{"user_id":"emoji","name":"\#(Self.familyEmoji)"}"#)
            #expect(response.status == 422)
            #expect(response.object["type"] as? String == ProblemType.invalidField.rawValue)
            #expect((response.object["detail"] as? String)?.contains("256 bytes") == true)
            // Nothing was stored: the user is unknown to a caller.
            let alice = try await APITests.token(http, "alice")
            #expect(try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"emoji"}"#).status == 404)
        }
    }

    @Test func aNameWithAControlCharacterIsRefused() async throws {
        try await APITests.withServer { http in
            for name in [#"Al\u0000ice"#, #"Bob\nSmith"#, #"Eve\u009b"#] {
                let response = try await http.send(
                    "POST", "/v1/tokens", token: APITests.adminKey,
                    json: #"{"user_id":"alice","name":"\#(name)"}"#)
                #expect(response.status == 422, "\(name)")
                #expect((response.object["detail"] as? String)?.contains("control characters") == true, "\(name)")
            }
            #expect(
                try await http.send(
                    "POST", "/v1/tokens", token: APITests.adminKey,
                    json: #"{"user_id":"alice","name":"Zoë Ångström 李小龍"}"#
                ).status == 201)
        }
    }

    /// Issue 26: `Bob\u{202E}gnp.exe` reached the callee's screen as "Bobexe.png". Names with bidirectional
    /// overrides and isolates, zero-width spaces, line separators or nothing visible are refused; the marks and
    /// joiners real names carry are kept (review: LRM/RLM in mixed-direction names, the soft hyphen, flags).
    @Test func aNameThatCouldSpoofAnotherOnTheCalleesScreenIsRefused() async throws {
        try await APITests.withServer { http in
            for name in [
                #"Bob\u202egnp.exe"#, #"Al\u200bice"#, #"\u2066Bob\u2069"#, #"\ufeffBob"#, #"Bob\u2028Admin"#,
                #"Bob\u2060"#, "   ", #"\u3164"#, #"Bob\udb40\udc41"#,
            ] {
                let response = try await http.send(
                    "POST", "/v1/tokens", token: APITests.adminKey,
                    json: #"{"user_id":"alice","name":"\#(name)"}"#)
                #expect(response.status == 422, "\(name)")
                #expect((response.object["detail"] as? String)?.contains("must show") == true, "\(name)")
            }
            // A family emoji (ZWJ), a Persian name (ZWNJ), Hebrew with the marks keyboards insert, a soft hyphen and
            // the flag of Scotland (a tag sequence) are names.
            for name in [
                String(Self.familyEmoji.prefix(1)), "می\u{200C}خواهم", "Dana \u{200E}דנה", "\u{200F}שרה (Sarah)",
                "Anne\u{00AD}Marie", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Iain",
            ] {
                let json = String(
                    decoding: try JSONEncoder().encode(["user_id": "alice", "name": name]), as: UTF8.self)
                #expect(
                    try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: json).status == 201,
                    "\(name)")
            }
            // A backend-minted token's name loses them, so its calls still ring under the plain name.
            let tokens = try UserTokens(secret: String(repeating: "s", count: 32))
            let alice = try tokens.mint(userID: "alice", name: "Bob\u{202E}gnp.exe\u{200B}", ttl: 600, now: Date())
                .token
            _ = try await APITests.token(http, "bob")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            #expect(call.caller.name == "Bobgnp.exe")
            #expect(DisplayName.fromToken("\u{3164}\u{200B} ") == nil)
            #expect(DisplayName.fromToken("Bob\u{E0041}") == "Bob")
        }
    }

    @Test func anOversizedNameInABackendMintedTokenIsCutSoItsCallsStillRing() async throws {
        try await APITests.withServer { http in
            // The app's backend mints with the shared secret and no limit of its own.
            let tokens = try UserTokens(secret: String(repeating: "s", count: 32))
            let alice = try tokens.mint(userID: "alice", name: "\u{0007}" + Self.familyEmoji, ttl: 600, now: Date())
                .token
            _ = try await APITests.token(http, "bob")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let name = try #require(call.caller.name)
            // Ten whole family emoji (250 bytes); the bell is dropped.
            #expect(name == String(Self.familyEmoji.prefix(10)))
            #expect(name.utf8.count <= DisplayName.maximumNameBytes)
        }
    }

    @Test func aPushTokenWithANULIsRefusedNotCutShort() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            for (device, body) in [
                ("bob-pixel", #"{"platform":"android","fcm_token":"tok\u0000A"}"#),
                ("bob-iphone", #"{"platform":"ios","voip_token":"ab\u0000cd","bundle_id":"com.example.app"}"#),
            ] {
                #expect(
                    try await http.send("PUT", "/v1/devices/\(device)", token: bob, json: body).status == 422, "\(body)"
                )
            }
            #expect(
                (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func cuttingANameKeepsWholeCharactersAndDropsControls() {
        #expect(DisplayName.fromToken(nil) == nil)
        #expect(DisplayName.fromToken("\u{0000}\u{001F}") == nil)
        #expect(DisplayName.fromToken("A\u{0000}l\u{007F}ice") == "Alice")
        #expect(DisplayName.fromToken(String(repeating: "é", count: 100)) == String(repeating: "é", count: 64))
        // 3-byte characters: 85 fit in 256 bytes, but only 64 characters are kept.
        #expect(DisplayName.fromToken(String(repeating: "李", count: 100))?.count == 64)
        let cut = try! #require(DisplayName.fromToken(Self.familyEmoji))
        #expect(cut.count == 10 && cut.utf8.count == 250)
        #expect(DisplayName.problem(String(repeating: "a", count: 64)) == nil)
        #expect(DisplayName.problem(String(repeating: "a", count: 65)) != nil)
        #expect(DisplayName.problem("") != nil)
    }

    @Test func theLargestNamesAndIdsStillFitEveryRingingPush() throws {
        // The most bytes after JSON escaping: 64 quotes (two bytes each), 64 four-byte emoji (256 bytes), and
        // quotes with combining marks (a character of five bytes, six escaped).
        let names = [
            String(repeating: "\"", count: 64), String(repeating: "\u{1F600}", count: 64),
            String(repeating: "\"\u{301}\u{301}", count: 51),
        ]
        let now = Date()
        for name in names {
            #expect(DisplayName.problem(name) == nil, "\(name.utf8.count) bytes")
            let call = Call(
                callID: UUID().uuidString.lowercased(), state: .ringing,
                caller: Party(id: String(repeating: "a", count: 128), name: name),
                callee: Party(id: String(repeating: "b", count: 128)), hasVideo: true, createdAt: now,
                expiresAt: now.addingTimeInterval(45))
            let voip = try APNsPushSender.incomingCallPayload(for: call, now: now)
            #expect(voip.count <= APNsPushType.voip.maximumPayloadBytes, "\(voip.count) bytes")
            let data = try FCMPushSender.data(for: .ring, call: call, now: now)
            try FCMMessage(data: data, priority: .high, collapseKey: call.callID).validate()
            let missed = try FCMPushSender.data(for: .missedCall, call: call, now: now)
            try FCMMessage(
                data: missed, notification: .init(title: "Missed call", body: name), priority: .normal,
                collapseKey: call.callID
            ).validate()
        }
    }
}
