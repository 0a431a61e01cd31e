import DevCertificates
import Foundation
import JWT
import RingerStore
import RingerSandbox
import RingerSupport
import RingerWire
import Testing

@testable import RingerServer

/// Push providers per app (decision 0009 §4): added, replaced and removed with the admin key, with no restart; each
/// app's devices pushed with its own credentials, the flags' the default; credentials checked before anything is
/// stored and never shown again.
@Suite(.serialized) struct PushProviderTests {
    /// A `.p8` key's text.
    static func p8() throws -> (key: JWTSigningKey, pem: String) {
        let key = try JWTSigningKey.generateP256()
        return (key, try key.pkcs8PEM())
    }

    static func providerJSON(name: String, keyID: String, pem: String, bundles: [String]) throws -> String {
        let body: [String: Any] = [
            "name": name, "kind": "apns", "team_id": "TEAMRINGER", "key_id": keyID, "key": pem, "bundle_ids": bundles,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test func eachAppIsPushedWithItsOwnKeyWhichRotatesAndRetiresWithoutARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-pp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory.appendingPathComponent("tls"))
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path, privateKeyPath: tls.serverPrivateKey.path),
            logger: .silent())
        // The flags' key is one APNs does not know: whatever the default sends is refused, so an accepted push went
        // through a provider.
        let (_, defaultPEM) = try Self.p8()
        let defaultFile = directory.appendingPathComponent("default.p8")
        try Data(defaultPEM.utf8).write(to: defaultFile)
        let (second, secondPEM) = try Self.p8()
        try sandbox.addProviderKey(keyID: "KEYSECOND1", teamID: "TEAMRINGER", publicKeyPEM: try second.publicKeyPEM())
        let port = try sandbox.start()
        defer { sandbox.shutdown() }
        try await APITests.withServer(configure: { config in
            var apns = ServerConfiguration.APNsSettings(
                keyFile: defaultFile.path, keyID: "KEYDEFAULT", teamID: "TEAMRINGER")
            apns.sandboxURL = "https://localhost:\(port)"
            apns.productionURL = apns.sandboxURL
            apns.caFile = tls.caCertificate.path
            config.apns = apns
            config.secretsKeys = [WebhookEndpointTests.secretsKey]
            config.rateLimits = .off
        }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            func register(_ device: String, bundle: String, voip: String) async throws {
                let answer = try await http.send(
                    "PUT", "/v1/devices/\(device)", token: bob,
                    json:
                        #"{"platform":"ios","voip_token":"\#(voip)","apns_environment":"sandbox","bundle_id":"\#(bundle)"}"#
                )
                #expect(answer.status == 200)
            }
            /// The statuses of the pushes a new call to bob sent, per device: 403 `InvalidProviderToken` for a key
            /// APNs does not know, 400 `BadDeviceToken` for one it accepted (it checks the key before the device
            /// token, and these devices' tokens are no phone's).
            func ring() async throws -> [String: Int] {
                let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                var found: [String: Int] = [:]
                for _ in 0..<200 where found.count < 2 {
                    let pushes = try (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bob)).object
                    for push in pushes["pushes"] as? [[String: Any]] ?? [] {
                        if let device = push["device_id"] as? String, let status = push["status"] as? Int {
                            found[device] = status
                        }
                    }
                    if found.count < 2 { try await Task.sleep(for: .milliseconds(25)) }
                }
                _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice)
                return found
            }
            try await register("bob-first", bundle: "com.example.app", voip: String(repeating: "a1", count: 32))
            try await register("bob-second", bundle: "com.example.second", voip: String(repeating: "b2", count: 32))
            #expect(try await ring() == ["bob-first": 403, "bob-second": 403])
            let made = try await http.send(
                "POST", "/v1/push-providers", token: APITests.adminKey,
                json: try Self.providerJSON(
                    name: "second-app", keyID: "KEYSECOND1", pem: secondPEM, bundles: ["com.example.second"]))
            #expect(made.status == 201)
            let provider = try made.decode(PushProviderInfo.self)
            #expect(!String(decoding: made.body, as: UTF8.self).contains("PRIVATE KEY"))
            // In force on this server as soon as it is answered.
            #expect(try await ring() == ["bob-first": 403, "bob-second": 400])
            // Rotated to a third key: the device keeps its token and rings through the new key.
            let (third, thirdPEM) = try Self.p8()
            try sandbox.addProviderKey(
                keyID: "KEYTHIRD01", teamID: "TEAMRINGER", publicKeyPEM: try third.publicKeyPEM())
            let rotated = try await http.send(
                "PUT", "/v1/push-providers/\(provider.providerID)", token: APITests.adminKey,
                json: try Self.providerJSON(
                    name: "second-app", keyID: "KEYTHIRD01", pem: thirdPEM, bundles: ["com.example.second"]))
            #expect(try rotated.decode(PushProviderInfo.self).keyID == "KEYTHIRD01")
            #expect(try await ring() == ["bob-first": 403, "bob-second": 400])
            // Retired: back to the default credentials.
            #expect(
                try await http.send("DELETE", "/v1/push-providers/\(provider.providerID)", token: APITests.adminKey)
                    .status == 204)
            #expect(try await ring() == ["bob-first": 403, "bob-second": 403])
        }
    }

    @Test func aProviderTheServerCannotUseIsRefusedAndStoresNothing() async throws {
        try await APITests.withServer(configure: { $0.secretsKeys = [WebhookEndpointTests.secretsKey] }) { http in
            let (_, pem) = try Self.p8()
            let rsa = try JWTSigningKey.generateRSA(bits: 2048).pkcs8PEM()
            let bodies = [
                try Self.providerJSON(name: "a", keyID: "KEY0000001", pem: "not a key", bundles: ["com.example.app"]),
                try Self.providerJSON(name: "a", keyID: "KEY0000001", pem: rsa, bundles: ["com.example.app"]),
                try Self.providerJSON(name: "a", keyID: "short", pem: pem, bundles: ["com.example.app"]),
                try Self.providerJSON(name: "a", keyID: "KEY0000001", pem: pem, bundles: []),
                try Self.providerJSON(name: "a", keyID: "KEY0000001", pem: pem, bundles: ["com.example.app.voip"]),
                try Self.providerJSON(name: "a b", keyID: "KEY0000001", pem: pem, bundles: ["com.example.app"]),
                #"{"name":"f","kind":"fcm","service_account":"{\"type\":\"service_account\"}"}"#,
                #"{"name":"f","kind":"fcm"}"#,
                #"{"name":"f","kind":"carrier-pigeon"}"#,
            ]
            for body in bodies {
                APITests.expectProblem(
                    try await http.send("POST", "/v1/push-providers", token: APITests.adminKey, json: body),
                    status: 422, type: .invalidField)
            }
            let listed = try (try await http.send("GET", "/v1/push-providers", token: APITests.adminKey)).decode(
                PushProviderList.self)
            #expect(listed.providers.isEmpty)
            // One bundle id, one provider.
            let first = try await http.send(
                "POST", "/v1/push-providers", token: APITests.adminKey,
                json: try Self.providerJSON(name: "one", keyID: "KEY0000001", pem: pem, bundles: ["com.example.app"]))
            #expect(first.status == 201)
            APITests.expectProblem(
                try await http.send(
                    "POST", "/v1/push-providers", token: APITests.adminKey,
                    json: try Self.providerJSON(
                        name: "two", keyID: "KEY0000002", pem: pem, bundles: ["com.example.app"])),
                status: 422, type: .invalidField)
            APITests.expectProblem(
                try await http.send("GET", "/v1/push-providers/pp_nope", token: APITests.adminKey),
                status: 404, type: .pushProviderNotFound)
            // An API key is not the operator's.
            let key = try await APIKeyTests.makeKey(http, scopes: ["calls:write", "webhooks:write"]).key
            APITests.expectProblem(
                try await http.send("GET", "/v1/push-providers", token: key), status: 403, type: .forbidden)
        }
    }

    @Test func aFirebaseProjectAddedThroughTheAPITakesItsDevices() async throws {
        try await APITests.withServer(configure: { $0.secretsKeys = [WebhookEndpointTests.secretsKey] }) { http in
            let bob = try await APITests.token(http, "bob")
            let account = try FCMSandboxServiceAccountFile.make(
                projectID: "second-project", tokenURI: "https://localhost:9/token")
            let body: [String: Any] = [
                "name": "second-firebase", "kind": "fcm", "service_account": String(decoding: account, as: UTF8.self),
            ]
            let made = try await http.send(
                "POST", "/v1/push-providers", token: APITests.adminKey,
                json: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
            #expect(made.status == 201)
            let info = try made.decode(PushProviderInfo.self)
            #expect(
                info.projectID == "second-project" && info.clientEmail?.hasSuffix("iam.gserviceaccount.com") == true)
            #expect(!String(decoding: made.body, as: UTF8.self).contains("private_key"))
            // The project is one of the server's now: a device may name it.
            let registered = try await http.send(
                "PUT", "/v1/devices/bob-pixel", token: bob,
                json: #"{"platform":"android","fcm_token":"pixel-token","fcm_project_id":"second-project"}"#)
            #expect(registered.status == 200)
        }
    }
}

/// The push providers' rows, alike on SQLite and PostgreSQL: what each server polls to reload them.
@Suite struct PushProviderStoreTests {
    @Test(arguments: StoreKind.allCases) func everyChangeMovesTheVersion(_ kind: StoreKind) async throws {
        let store = try await kind.open()
        let empty = try await store.pushProvidersVersion()
        let at = Date(unixMilliseconds: 1_800_000_000_000)
        var provider = StoredPushProvider(
            info: PushProviderInfo(
                providerID: "pp_" + String(repeating: "a", count: 24), name: "one", kind: .fcm, projectID: "p1",
                createdAt: at, updatedAt: at),
            sealedCredential: "sealed")
        try await store.insertPushProvider(provider)
        let added = try await store.pushProvidersVersion()
        let listed = try await store.pushProviders()
        #expect(added != empty && listed == [provider])
        provider.info.updatedAt = at.addingTimeInterval(1)
        provider.sealedCredential = "sealed again"
        #expect(try await store.replacePushProvider(provider))
        let replaced = try await store.pushProvidersVersion()
        let relisted = try await store.pushProviders()
        #expect(replaced != added && relisted.first?.sealedCredential == "sealed again")
        // A second provider of the same name is refused by the database itself.
        var twin = provider
        twin.info.providerID = "pp_" + String(repeating: "b", count: 24)
        await #expect(throws: (any Error).self) { try await store.insertPushProvider(twin) }
        #expect(try await store.deletePushProvider(id: provider.info.providerID))
        #expect(try await store.pushProvidersVersion() != replaced)
        #expect(try await !store.deletePushProvider(id: provider.info.providerID))
    }
}

/// What the third review found (decision 0009, "Progress"): the conflict checks hold across servers.
@Suite struct PushProviderConflictTests {
    static func apns(_ id: Character, name: String, bundle: String) -> StoredPushProvider {
        let at = Date()
        return StoredPushProvider(
            info: PushProviderInfo(
                providerID: "pp_" + String(repeating: id, count: 24), name: name, kind: .apns, teamID: "TEAMRINGER",
                keyID: "KEY0000001", bundleIDs: [bundle], createdAt: at, updatedAt: at),
            sealedCredential: "sealed-\(id)")
    }

    @Test(arguments: StoreKind.allCases) func twoServersGivingOneBundleIDToTwoProvidersAtOnceStoreOne(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        async let a = Result(catching: {
            try await first.insertPushProvider(Self.apns("a", name: "one", bundle: "com.example.app"))
        })
        async let b = Result(catching: {
            try await second.insertPushProvider(Self.apns("b", name: "two", bundle: "com.example.app"))
        })
        let outcomes = await [a, b]
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(
            outcomes.contains {
                if case .failure(let error) = $0 { return error is PushProviderConflict }; return false
            })
        #expect(try await first.pushProviders().count == 1)
    }

    @Test(arguments: StoreKind.allCases) func everyChangeMovesTheRevisionWhateverTheClocksSay(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        var provider = Self.apns("a", name: "one", bundle: "com.example.app")
        try await store.insertPushProvider(provider)
        let before = try await store.pushProvidersVersion()
        // A replacement stamped earlier than the original (a server whose clock is behind) still moves it.
        provider.info.updatedAt = provider.info.updatedAt.addingTimeInterval(-60)
        provider.sealedCredential = "sealed-again"
        #expect(try await store.replacePushProvider(provider))
        #expect(try await store.pushProvidersVersion() != before)
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
