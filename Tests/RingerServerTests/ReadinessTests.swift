import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerWire
import Testing

@testable import RingerServer
@testable import RingerStore

/// The readiness pre-flight in the store: a device's last report is kept (migration 6 adds the columns), and a
/// registration is a full replace, so one without a report clears it.
@Suite struct ReadinessStoreTests {
    static let reported = Date(unixMilliseconds: 1_800_000_000_000)

    static func pixel(readiness: DeviceReadiness?, at date: Date = reported) -> Device {
        Device(
            deviceID: "bob-pixel", userID: "bob", platform: .android, fcmToken: "fcm-token-1", updatedAt: date,
            readiness: readiness)
    }

    @Test func aReportRoundTripsAndARegistrationWithoutOneClearsIt() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let report = DeviceReadiness(
            problems: [.batteryOptimized, .notificationsDisabled, "some_future_problem"],
            reportedAt: Self.reported)
        #expect(try await store.registerDevice(Self.pixel(readiness: report)).readiness == report)
        #expect(try await store.device(id: "bob-pixel", userID: "bob")?.readiness == report)
        #expect(try await store.devices(ofUser: "bob").map(\.readiness) == [report])

        // "Checked and found nothing" is a report too, unlike "never reported".
        let clean = DeviceReadiness(problems: [], reportedAt: Self.reported + 60)
        _ = try await store.registerDevice(Self.pixel(readiness: clean, at: Self.reported + 60))
        #expect(try await store.device(id: "bob-pixel", userID: "bob")?.readiness == clean)

        _ = try await store.registerDevice(Self.pixel(readiness: nil, at: Self.reported + 120))
        #expect(try await store.device(id: "bob-pixel", userID: "bob")?.readiness == nil)
    }

    @Test func aDeviceStoredUnderSchemaFiveReadsAsNeverReportedAfterMigrationSixAndThenKeepsAReport() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-schema5-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // The database a server of the previous release left: migrations 1…5 only, one Android device.
        do {
            let db = try SQLiteConnection(path: path)
            for (index, migration) in SchemaMigrations.migrations.prefix(5).enumerated() {
                try db.transaction {
                    try db.execute(migration.sqlite)
                    try db.execute("PRAGMA user_version = \(index + 1)")
                }
            }
            try db.query(
                """
                INSERT INTO devices (device_id, user_id, platform, fcm_token, updated_at, fcm_project_id)
                VALUES ('bob-pixel', 'bob', 'android', 'fcm-token-1', ?, 'ringer-demo')
                """, [.real(Self.reported.timeIntervalSince1970)])
        }

        let report = DeviceReadiness(problems: [.fullScreenIntentDenied], reportedAt: Self.reported + 60)
        do {
            let store = try SQLiteStore(path: path)
            let old = try #require(try await store.device(id: "bob-pixel", userID: "bob"))
            #expect(old.readiness == nil)
            #expect(
                old.fcmToken == "fcm-token-1" && old.fcmProjectID == "ringer-demo" && old.updatedAt == Self.reported)
            var again = old
            again.readiness = report
            again.updatedAt = Self.reported + 60
            _ = try await store.registerDevice(again)
        }

        var version: Int64 = 0
        try SQLiteConnection(path: path).query("PRAGMA user_version", []) { version = $0.integer(0) }
        #expect(version == Int64(SchemaMigrations.migrations.count))
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.device(id: "bob-pixel", userID: "bob")?.readiness == report)
    }
}

/// `PUT /v1/devices/{id}` with a readiness report, `GET /v1/devices`, and `callee_readiness` on a call, against
/// a real server on loopback (no push provider: devices ring only when they say so).
@Suite(.serialized) struct ReadinessAPITests {
    static func withServer(_ body: (TestHTTP) async throws -> Void) async throws {
        // Rate limits off: these tests send more than a minute's worth of device changes.
        try await APITests.withServer(configure: { $0.rateLimits = .off }, body)
    }

    static func pixel(token: String = "fcm-token-1", readiness: String?) -> String {
        #"{"platform":"android","fcm_token":"\#(token)""# + (readiness.map { #","readiness":\#($0)"# } ?? "") + "}"
    }

    static func devices(_ http: TestHTTP, token: String) async throws -> [Device] {
        let data = try JSONSerialization.data(
            withJSONObject: (try await http.send("GET", "/v1/devices", token: token))
                .object["devices"] ?? [])
        return try RingerJSON.decode([Device].self, from: data)
    }

    /// `count` distinct well-formed names, `name_a`, `name_b`, ….
    static func names(_ count: Int) -> [String] {
        (0..<count).map { "name_" + String(UnicodeScalar(UInt8(97 + $0))) }
    }

    static func problems(_ names: [String]) -> String {
        #"{"problems":["# + names.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
    }

    @Test func aReportIsStoredDeDuplicatedSortedAndStampedAndGETDevicesShowsIt() async throws {
        try await Self.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let before = Date()
            // A `reported_at` the app sends, of whatever shape, is the server's to set: it is not read.
            let response = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: Self.pixel(
                    readiness: """
                        {"problems":["notifications_disabled","battery_optimized","notifications_disabled","some_future_problem"],\
                        "reported_at":"last week"}
                        """))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let device = try response.decode(Device.self)
            let readiness = try #require(device.readiness)
            #expect(readiness.problems == [.batteryOptimized, .notificationsDisabled, "some_future_problem"])
            let reportedAt = try #require(readiness.reportedAt)
            #expect(reportedAt == device.updatedAt)
            #expect(reportedAt >= before.addingTimeInterval(-1) && reportedAt <= Date().addingTimeInterval(1))
            #expect(try await Self.devices(http, token: bob) == [device])
            let wire = try #require(
                (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [[String: Any]])?
                    .first?["readiness"] as? [String: Any])
            #expect(
                wire["problems"] as? [String] == ["battery_optimized", "notifications_disabled", "some_future_problem"])
            #expect(wire["reported_at"] is String)
        }
    }

    @Test func theLimitsThemselvesAreAcceptedAndAnEmptyReportIsKept() async throws {
        try await Self.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let longest = "a" + String(repeating: "_b", count: 31) + "c"
            #expect(longest.utf8.count == 64)
            let sixteen = Array(Self.names(15)) + [longest]
            let full = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: Self.pixel(readiness: Self.problems(sixteen)))
            #expect(full.status == 200, "\(String(decoding: full.body, as: UTF8.self))")
            #expect(try full.decode(Device.self).readiness?.problems.map(\.rawValue) == sixteen.sorted())

            let empty = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob, json: Self.pixel(readiness: #"{"problems":[]}"#))
            #expect(try empty.decode(Device.self).readiness?.problems == [])
            #expect(try await Self.devices(http, token: bob).first?.readiness?.problems == [])
        }
    }

    @Test func aRegistrationWithoutReadinessClearsTheLastReport() async throws {
        try await Self.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let first = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: Self.pixel(readiness: #"{"problems":["battery_optimized"]}"#))
            #expect(try first.decode(Device.self).readiness?.problems == [.batteryOptimized])
            let again = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob, json: Self.pixel(readiness: nil))
            #expect(again.status == 200)
            #expect(again.object["readiness"] == nil)
            #expect(try await Self.devices(http, token: bob).first?.readiness == nil)
        }
    }

    @Test func aBadReportIsRefusedAndTheStoredDeviceStaysAsItWas() async throws {
        try await Self.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let stored = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: Self.pixel(readiness: #"{"problems":["battery_optimized"]}"#))
            #expect(stored.status == 200)
            let before = try await Self.devices(http, token: bob)
            #expect(before.count == 1)

            // Well-formed JSON, unacceptable names: 422 invalid-field, like any other bad value of a registration.
            var badNames: [[String]] = [
                Self.names(17), Array(repeating: "battery_optimized", count: 17),
                [String(repeating: "a", count: 65)],
            ]
            badNames += [
                "Notifications_disabled", "notifications disabled", "notifications-disabled", "_leading",
                "trailing_", "double__underscore", "9lives", "", "\u{00FC}mlaut",
            ].map { ["battery_optimized", $0] }
            for names in badNames {
                // A new token with it: had anything been stored, the device would show it.
                let response = try await http.send(
                    "PUT", "/v1/devices/bob-pixel", token: bob,
                    json: Self.pixel(token: "fcm-token-2", readiness: Self.problems(names)))
                APITests.expectProblem(response, status: 422, type: .invalidField)
                #expect((response.object["detail"] as? String)?.contains("readiness.problems") == true, "\(names)")
                #expect(try await Self.devices(http, token: bob) == before, "\(names)")
            }

            // The wrong JSON shape: 400 malformed-request, like any other field of the wrong type.
            for readiness in [
                #""battery_optimized""#, #"["battery_optimized"]"#, "{}", #"{"problems":"battery_optimized"}"#,
                #"{"problems":{"battery_optimized":true}}"#, #"{"problems":[5]}"#, #"{"problems":[null]}"#,
                #"{"problems":null}"#, "null",
            ] {
                let response = try await http.send(
                    "PUT", "/v1/devices/bob-pixel", token: bob,
                    json: Self.pixel(token: "fcm-token-2", readiness: readiness))
                APITests.expectProblem(response, status: 400, type: .malformedRequest)
                #expect(try await Self.devices(http, token: bob) == before, "\(readiness)")
            }
        }
    }

    @Test func calleeReadinessJoinsTheDevicesThatRangAsTheyLastReportedAndNamesNoDevice() async throws {
        try await Self.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            func ios(_ voip: String, _ problems: String) -> String {
                #"{"platform":"ios","voip_token":"\#(voip)","bundle_id":"com.example.app","readiness":{"problems":[\#(problems)]}}"#
            }
            for (device, json) in [
                ("bob-iphone", ios(String(repeating: "ab", count: 32), #""notifications_disabled""#)),
                ("bob-ipad", ios(String(repeating: "cd", count: 32), #""push_token_stale","notifications_disabled""#)),
                ("bob-old", ios(String(repeating: "ef", count: 32), #""calls_not_permitted""#)),
            ] {
                #expect(try await http.send("PUT", "/v1/devices/\(device)", token: bob, json: json).status == 200)
            }
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            func shown(to token: String) async throws -> (call: Call, text: String) {
                let response = try await http.send("GET", "/v1/calls/\(call.callID)", token: token)
                #expect(response.status == 200)
                return (try response.decode(Call.self), String(decoding: response.body, as: UTF8.self))
            }
            // No push provider here and nothing rang yet: nothing to say.
            #expect(try await shown(to: alice).call.calleeReadiness == nil)
            #expect(try await shown(to: alice).text.contains("callee_readiness") == false)

            for device in ["bob-iphone", "bob-ipad"] {
                #expect(
                    try await http.send(
                        "POST", "/v1/calls/\(call.callID)/ringing", token: bob,
                        json: #"{"device_id":"\#(device)"}"#
                    ).status == 200)
            }
            let caller = try await shown(to: alice)
            #expect(caller.call.calleeReadiness == [.notificationsDisabled, .pushTokenStale], "bob-old never rang")
            #expect(caller.call.pushes == nil)
            #expect(!caller.text.contains("bob-iphone") && !caller.text.contains("bob-ipad"), "no device is named")
            #expect(try await shown(to: bob).call.calleeReadiness == [.notificationsDisabled, .pushTokenStale])

            // The iPhone's user turns notifications back on: a rung device counts as it last reported.
            #expect(
                try await http.send(
                    "PUT", "/v1/devices/bob-iphone", token: bob,
                    json: ios(String(repeating: "ab", count: 32), "")
                ).status == 200)
            #expect(try await shown(to: alice).call.calleeReadiness == [.notificationsDisabled, .pushTokenStale])
            #expect(
                try await http.send(
                    "PUT", "/v1/devices/bob-ipad", token: bob,
                    json: ios(String(repeating: "cd", count: 32), #""push_token_stale""#)
                ).status == 200)
            #expect(try await shown(to: alice).call.calleeReadiness == [.pushTokenStale])

            // Only `GET /v1/calls/{id}` carries it, not the call list.
            let list = try await http.send("GET", "/v1/calls", token: alice)
            #expect(!String(decoding: list.body, as: UTF8.self).contains("callee_readiness"))
        }
    }
}

/// The whole chain: RingerKit's registrar reports the phone's readiness to a real server, which sends the
/// ringing VoIP push through the APNs sandbox and records the readiness the device had then.
@Suite(.serialized) struct ReadinessEndToEndTests {
    static func pushes(_ http: TestHTTP, call: String, token: String) async throws -> [PushAttempt] {
        try (try await http.send("GET", "/v1/calls/\(call)/pushes", token: token)).decode([String: [PushAttempt]].self)[
            "pushes"] ?? []
    }

    @Test func aPushRecordsTheReadinessTheRegistrarReportedWhenItWasSent() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        let http = TestHTTP(base: stack.serverURL)
        let bobToken = try await stack.userToken(for: "bob", name: "Bob")
        let aliceToken = try await stack.userToken(for: "alice", name: "Alice")

        // Bob's app reports through RingerKit, as a shipped app does: the same device id and tokens.
        let registrar = PushTokenRegistrar(
            deviceID: "bob-iphone", platform: .ios, bundleID: bob.identity.bundleID,
            apnsEnvironment: .sandbox)
        registrar.setToken(bob.identity.voipToken, for: .voip)
        registrar.setToken(bob.identity.apnsToken, for: .apns)
        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled]))
        registrar.logIn(RingerAPIClient(baseURL: stack.serverURL, userToken: bobToken))
        await registrar.waitUntilIdle()
        #expect(registrar.status.registeredDevice?.readiness?.problems == [.notificationsDisabled])

        let call = try await alice.call("bob")
        var ring: PushAttempt?
        for _ in 0..<200 {
            ring = try await Self.pushes(http, call: call.callID, token: bobToken)
                .first { $0.deviceID == "bob-iphone" && $0.pushType == .voip }
            if ring != nil { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        let sent = try #require(ring)
        #expect(sent.status == 200)
        #expect(sent.readiness == [.notificationsDisabled])

        // Bob turns notifications on: the registrar re-registers; the push still says how the phone was then.
        registrar.setReadiness(DeviceReadiness(problems: []))
        await registrar.waitUntilIdle()
        #expect(
            try await DeadTokenTests.devices(stack, user: "bob").first { $0.deviceID == "bob-iphone" }?
                .readiness?.problems == [])
        let later = try await Self.pushes(http, call: call.callID, token: bobToken)
            .first { $0.deviceID == "bob-iphone" && $0.pushType == .voip }
        #expect(later?.readiness == [.notificationsDisabled])
        #expect(later?.sentAt == sent.sentAt)

        // Alice learns why bob's phone may not ring, not which phones bob has.
        let response = try await http.send("GET", "/v1/calls/\(call.callID)", token: aliceToken)
        let seen = try response.decode(Call.self)
        #expect(seen.calleeReadiness == [.notificationsDisabled])
        #expect(seen.pushes == nil)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("bob-iphone"))
        await stack.shutdown()
    }
}
