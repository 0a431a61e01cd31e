import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RingerTestSupport
import Testing

/// `ringer serve` as an operator runs it: configured by flags or `RINGER_*` variables, serving until
/// SIGTERM, then exiting 0; a bad configuration exits 2 naming the setting but never its secret.
@Suite(.serialized) struct ServeCommandTests {
    /// The `ringer` executable built next to the test bundle.
    static var ringer: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ringer")
    }

    static func freePort() throws -> Int {
        let closed = try ClosedPort()
        return closed.port
    }

    @Test func servesHealthzFromEnvironmentConfigurationAndStopsCleanlyOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try Self.freePort()
        let process = Process()
        process.executableURL = Self.ringer
        process.arguments = ["serve", "--listen", "127.0.0.1:\(port)"]
        process.environment = ["RINGER_ADMIN_KEY": "serve-test-admin",
                               "RINGER_USER_TOKEN_SECRET": String(repeating: "z", count: 40),
                               "RINGER_DATABASE": directory.appendingPathComponent("db.sqlite").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()

        var healthy = false
        for _ in 0..<100 where !healthy {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!),
               (response as? HTTPURLResponse)?.statusCode == 200 {
                healthy = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(healthy)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("db.sqlite").path))
        process.terminate()   // SIGTERM
        var status: Int32?
        for await code in exited.stream { status = code }
        #expect(status == 0)
    }

    @Test func missingSecretExitsWithUsageErrorWithoutEchoingSecrets() async throws {
        let process = Process()
        process.executableURL = Self.ringer
        process.arguments = ["serve", "--admin-key", "super-secret-admin-key", "--user-token-secret", "short"]
        process.environment = [:]
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-serve-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()
        var status: Int32?
        for await code in exited.stream { status = code }
        let text = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
        #expect(status == 2)
        #expect(text.contains("user-token-secret"))
        #expect(!text.contains("super-secret-admin-key"))
        #expect(!text.contains("short\n"))
    }

    /// Found by review: `ringer serve --help` used to fail on an unknown flag.
    @Test func helpAfterACommandPrintsTheUsage() async throws {
        let process = Process()
        process.executableURL = Self.ringer
        process.arguments = ["serve", "--help"]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-help-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()
        var status: Int32?
        for await code in exited.stream { status = code }
        #expect(status == 0)
        #expect(String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("ringer serve [flags]"))
    }
}

/// `ringer sandbox`'s FCM flags as an operator gives them.
@Suite struct SandboxCommandTests {
    @Test func badDemotionSettingsAreRefusedByName() async throws {
        let ringer = ServeCommandTests.ringer.path
        for (flag, value) in [("--fcm-demotion-threshold", "0"), ("--fcm-demotion-threshold", "many"),
                              ("--fcm-demotion-window", "-5"), ("--fcm-demotion-window", "inf")] {
            let run = try await ChildProcess.run([ringer, "sandbox", "--listen", "127.0.0.1:0", flag, value], timeout: 60)
            #expect(run.status == 2, "\(flag) \(value)")
            #expect(run.standardError.contains(flag), "\(flag) \(value): \(run.standardError)")
        }
    }
}
