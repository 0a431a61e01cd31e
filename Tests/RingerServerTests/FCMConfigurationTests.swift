import Foundation
import RingerCommandLine
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// The FCM flags and what an Android device may register.
@Suite struct FCMConfigurationTests {
    let required = ["--admin-key", "k", "--user-token-secret", String(repeating: "s", count: 32)]

    @Test func theServiceAccountFlagRepeatsAndTheFirstProjectIsTheDefault() throws {
        let config = try ServerConfiguration.parse(
            arguments: required + [
                "--fcm-service-account", "a.json", "--fcm-service-account=b.json",
                "--fcm-host", "localhost:9443", "--fcm-ca-file", "ca.pem",
            ],
            environment: [:])
        #expect(config.fcm?.serviceAccountFiles == ["a.json", "b.json"])
        #expect(config.fcm?.baseURL == "https://localhost:9443")
        #expect(config.fcm?.caFile == "ca.pem")
    }

    @Test func theEnvironmentVariableListsSeveralFilesSeparatedByCommasAndAFlagReplacesIt() throws {
        let listed = try ServerConfiguration.parse(
            arguments: required,
            environment: ["RINGER_FCM_SERVICE_ACCOUNT": "a.json, b.json"])
        #expect(listed.fcm?.serviceAccountFiles == ["a.json", "b.json"])
        #expect(listed.fcm?.baseURL == "https://fcm.googleapis.com")
        let replaced = try ServerConfiguration.parse(
            arguments: required + ["--fcm-service-account", "c.json"],
            environment: ["RINGER_FCM_SERVICE_ACCOUNT": "a.json,b.json"])
        #expect(replaced.fcm?.serviceAccountFiles == ["c.json"])
        // A single-valued setting from the environment keeps its commas.
        let secret = try ServerConfiguration.parse(
            arguments: ["--user-token-secret", String(repeating: "s", count: 32)],
            environment: ["RINGER_ADMIN_KEY": "a,b"])
        #expect(secret.adminKey == "a,b")
        #expect(secret.fcm == nil)
    }

    @Test func anFCMHostWithoutCredentialsIsRefusedByName() {
        #expect(throws: ConfigurationError.self) {
            _ = try ServerConfiguration.parse(arguments: required + ["--fcm-host", "localhost:9443"], environment: [:])
        }
    }

    private func register(_ body: DeviceRegistration, projects: [String] = []) async throws -> Device {
        let registry = DeviceRegistry(store: try SQLiteStore(path: ":memory:"), fcmProjects: { projects })
        return try await registry.register(deviceID: "bob-pixel", user: Party(id: "bob"), body: body, now: Date())
    }

    private func refusal(_ body: DeviceRegistration, projects: [String] = []) async -> String? {
        do {
            _ = try await register(body, projects: projects)
            return nil
        } catch let problem as Problem {
            return problem.detail
        } catch {
            return "\(error)"
        }
    }

    @Test func anAndroidTokenIsStoredWithItsProject() async throws {
        let token = "dGVzdC1pbnN0YW5jZQ:APA91bH-" + String(repeating: "x_Y.", count: 30)
        let device = try await register(
            .init(platform: .android, fcmToken: token, fcmProjectID: "ringer-demo"),
            projects: ["ringer-main", "ringer-demo"])
        #expect(device.fcmToken == token)
        #expect(device.fcmProjectID == "ringer-demo")
    }

    @Test func fcmTokensWithOddCharactersOrAbsurdLengthAreRefused() async {
        for token in [
            "", "has space", "slash/inside", "quote\"", "emoji📞", "tab\tx", String(repeating: "a", count: 4097),
        ] {
            #expect(
                await refusal(.init(platform: .android, fcmToken: token))?.contains("fcm_token") == true,
                "\(token.prefix(20))")
        }
    }

    @Test func aProjectTheServerDoesNotSendThroughIsRefusedAtRegistration() async {
        let detail = await refusal(
            .init(platform: .android, fcmToken: "abc:def", fcmProjectID: "someone-else"),
            projects: ["ringer-main"])
        #expect(detail?.contains("not one of the server's Firebase projects") == true)
        #expect(await refusal(.init(platform: .android, fcmToken: "abc:def", fcmProjectID: "bad/project")) != nil)
        // A legacy domain-scoped project the server sends through can be named, as its service account allows.
        #expect(
            await refusal(
                .init(platform: .android, fcmToken: "abc:def", fcmProjectID: "example.com:my-proj"),
                projects: ["ringer-main", "example.com:my-proj"]) == nil)
        // With no FCM configured, a well-formed project id is kept for later.
        #expect(await refusal(.init(platform: .android, fcmToken: "abc:def", fcmProjectID: "later-project")) == nil)
    }

    @Test func anIPhoneCannotNameAFirebaseProject() async {
        let detail = await refusal(
            .init(
                platform: .ios, voipToken: "abcd", bundleID: "com.example.app",
                fcmProjectID: "ringer-main"))
        #expect(detail?.contains("android") == true)
    }
}
