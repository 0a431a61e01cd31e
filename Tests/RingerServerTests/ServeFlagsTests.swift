import Foundation
import RingerCommandLine
import Testing

@testable import RingerServer

/// `ringer serve`'s flags are parsed by the executable into the server's typed configuration; every flag of
/// docs/configuration.md still reaches its setting, and every `host:port` is read by one parser.
@Suite struct ServeFlagsTests {
    @Test func everyServerFlagOfTheAPIReachesItsSetting() throws {
        let config = try ServerConfiguration.parse(
            arguments: [
                "--listen", "0.0.0.0:9090", "--database", "/tmp/r.sqlite", "--admin-key", "admin",
                "--user-token-secret", String(repeating: "u", count: 32),
                "--apns-key-file", "AuthKey_ABC.p8", "--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ",
                "--apns-host", "localhost:2197", "--apns-ca-file", "ca.pem", "--ring-timeout", "30",
                "--media-url", "wss://media.example", "--media-api-key", "key", "--media-api-secret", "media-secret",
                "--fcm-service-account", "firebase.json", "--fcm-host", "localhost:2198", "--fcm-ca-file", "fcm-ca.pem",
            ], environment: [:])
        #expect(config.host == "0.0.0.0" && config.port == 9090)
        #expect(config.databasePath == "/tmp/r.sqlite" && config.adminKey == "admin")
        #expect(config.userTokenSecret == String(repeating: "u", count: 32))
        let apns = try #require(config.apns)
        guard case .signingKey(let file, let keyID, let teamID) = apns.credentials else {
            Issue.record("not token authentication: \(apns.credentials)")
            return
        }
        #expect(file == "AuthKey_ABC.p8" && keyID == "ABC123DEFG" && teamID == "DEF123GHIJ")
        #expect(apns.sandboxURL == "https://localhost:2197" && apns.productionURL == "https://localhost:2197")
        #expect(apns.caFile == "ca.pem")
        #expect(config.ringTimeout == 30)
        #expect(
            config.media.url == "wss://media.example" && config.media.apiKey == "key"
                && config.media.apiSecret == "media-secret")
        let fcm = try #require(config.fcm)
        #expect(
            fcm.serviceAccountFiles == ["firebase.json"] && fcm.baseURL == "https://localhost:2198"
                && fcm.caFile == "fcm-ca.pem")

        let apart = try ServerConfiguration.parse(
            arguments: [
                "--apns-key-file", "k.p8", "--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ",
                "--apns-sandbox-host", "sandbox.example:443", "--apns-production-host", "https://production.example/",
            ],
            environment: ["RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32)])
        #expect(apart.apns?.sandboxURL == "https://sandbox.example:443")
        #expect(apart.apns?.productionURL == "https://production.example")
    }

    @Test func aPostgresURLFromTheEnvironmentAndAPoolSizeReachTheirSettingsAndThePasswordIsNeverShown() throws {
        let environment = [
            "RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32),
            "RINGER_DATABASE": "postgres://ringer:pa55word@db.internal:5432/ringer?sslmode=require",
        ]
        let config = try ServerConfiguration.parse(arguments: ["--database-pool-size", "20"], environment: environment)
        #expect(config.databasePath == environment["RINGER_DATABASE"])
        #expect(config.databasePoolSize == 20)
        #expect(config.databaseDescription == "postgres://ringer:***@db.internal:5432/ringer?sslmode=require")
        for bad in ["0", "201", "many"] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.parse(arguments: ["--database-pool-size", bad], environment: environment)
            }
        }
    }

    @Test func theDatabaseTimeoutIsTwoSecondsByDefaultAndReadFromItsFlagOrVariable() throws {
        let environment = ["RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32)]
        #expect(try ServerConfiguration.parse(arguments: [], environment: environment).databaseTimeout == 2)
        #expect(
            try ServerConfiguration.parse(arguments: ["--database-timeout", "0.5"], environment: environment)
                .databaseTimeout == 0.5)
        var withVariable = environment
        withVariable["RINGER_DATABASE_TIMEOUT"] = "7"
        #expect(try ServerConfiguration.parse(arguments: [], environment: withVariable).databaseTimeout == 7)
        for bad in ["0", "0.05", "601", "soon", "nan"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.parse(arguments: ["--database-timeout", bad], environment: environment)
            }
        }
    }

    @Test func theProductionServerHasNoTestOnlyFlags() throws {
        let environment = ["RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32)]
        // A fast clock and a parent watch are the laboratory's (`ringer-lab node`): `ringer serve` refuses them.
        for flag in [
            ["--test-time-scale", "0.1"], ["--test-time-origin", "1800000000000"], ["--test-parent-pid", "4242"],
        ] {
            #expect(throws: ConfigurationError.self, "\(flag)") {
                try ServerConfiguration.parse(arguments: flag, environment: environment)
            }
        }
        var variable = environment
        variable["RINGER_TEST_TIME_SCALE"] = "0.1"
        #expect(
            try ServerConfiguration.parse(arguments: [], environment: variable).redisPrefix == "ringer",
            "an environment variable of a flag serve does not have is not read")
    }

    @Test func clusterFlagsAreReadAndBadOnesRefused() throws {
        let environment = ["RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32)]
        let config = try ServerConfiguration.parse(
            arguments: ["--redis", "redis://127.0.0.1:6390", "--node-id", "node-2"],
            environment: environment)
        #expect(config.redisURL == "redis://127.0.0.1:6390" && config.nodeID == "node-2")
        let defaults = try ServerConfiguration.parse(arguments: [], environment: environment)
        #expect(defaults.redisPrefix == "ringer")
        let prefixed = try ServerConfiguration.parse(
            arguments: ["--redis-prefix", "staging.eu-1"], environment: environment)
        #expect(prefixed.redisPrefix == "staging.eu-1")
        for bad in [
            ["--node-id", "has space"], ["--redis-prefix", ""], ["--redis-prefix", "has space"],
            ["--redis-prefix", "ringer:presence"], ["--redis-prefix", String(repeating: "p", count: 65)],
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.parse(arguments: bad, environment: environment)
            }
        }
    }

    @Test func hostPortIsOneParserForEveryListenAddress() throws {
        #expect(try HostPort("[::1]:2197", flag: "--listen") == HostPort(host: "::1", port: 2197))
        #expect(try HostPort("localhost:0", flag: "--fcm-listen") == HostPort(host: "localhost", port: 0))
        #expect(HostPort(host: "::1", port: 2197).description == "[::1]:2197")
        #expect(HostPort(host: "127.0.0.1", port: 2198).description == "127.0.0.1:2198")
        for bad in ["localhost", "localhost:65536", "localhost:-1", "[::1]x:80", "host:port"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try HostPort(bad, flag: "--fcm-listen") }
        }
        do {
            _ = try HostPort("nowhere", flag: "--fcm-http1-listen")
        } catch let error as ConfigurationError {
            #expect(error.description.hasPrefix("--fcm-http1-listen must be host:port"))
        }
    }

    /// `--max-callees-per-call` (decision 0007 §7): 1–100, 16 by default; each callee spends one of the caller's calls,
    /// so a maximum above `--rate-limit-calls-per-minute` is refused (such a call could never ring), and the default
    /// follows a lower limit instead of refusing a configuration that worked before group calls.
    @Test func theLimitOnCalleesIsHeldToItsRangeAndToTheCallsPerMinute() throws {
        let environment = ["RINGER_ADMIN_KEY": "admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "u", count: 32)]
        #expect(try ServerConfiguration.parse(arguments: [], environment: environment).maxCalleesPerCall == 16)
        let set = try ServerConfiguration.parse(
            arguments: [], environment: environment.merging(["RINGER_MAX_CALLEES_PER_CALL": "8"]) { $1 })
        #expect(set.maxCalleesPerCall == 8)
        for bad in ["0", "101", "ten"] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.parse(arguments: ["--max-callees-per-call", bad], environment: environment)
            }
        }
        let refused = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.parse(
                arguments: ["--max-callees-per-call", "20", "--rate-limit-calls-per-minute", "10"],
                environment: environment)
        }
        #expect(refused?.description.contains("--rate-limit-calls-per-minute (10)") == true)
        let followed = try ServerConfiguration.parse(
            arguments: ["--rate-limit-calls-per-minute", "5"], environment: environment)
        #expect(followed.maxCalleesPerCall == 5)
        let off = try ServerConfiguration.parse(
            arguments: ["--rate-limit-calls-per-minute", "0", "--max-callees-per-call", "100"], environment: environment
        )
        #expect(off.maxCalleesPerCall == 100)
    }
}
