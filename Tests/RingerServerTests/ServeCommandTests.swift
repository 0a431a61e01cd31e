import Foundation
import RingerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ringer serve` as an operator runs it: configured by flags or `RINGER_*` variables, serving until
/// SIGTERM, then exiting 0; a bad configuration exits 2 naming the setting but never its secret.
@Suite(.serialized) struct ServeCommandTests {
    /// The `ringer` executable built next to the test bundle.
    static var ringer: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ringer")
    }

    /// The laboratory's `ringer-lab` executable built beside it.
    static var ringerLab: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ringer-lab")
    }

    static func freePort() throws -> Int {
        let closed = try ClosedPort()
        return closed.port
    }

    @Test func servesHealthzFromEnvironmentConfigurationAndStopsCleanlyOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try Self.freePort()
        let process = Process()
        process.executableURL = Self.ringer
        process.arguments = ["serve", "--listen", "127.0.0.1:\(port)"]
        process.environment = [
            "RINGER_ADMIN_KEY": "serve-test-admin",
            "RINGER_USER_TOKEN_SECRET": String(repeating: "z", count: 40),
            "RINGER_DATABASE": directory.appendingPathComponent("db.sqlite").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.continuation.yield($0.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()

        var healthy = false
        for _ in 0..<100 where !healthy {
            if let (_, response) = try? await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/healthz")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                healthy = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(healthy)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("db.sqlite").path))
        process.terminate()  // SIGTERM
        var status: Int32?
        for await code in exited.stream { status = code }
        #expect(status == 0)
    }

    @Test func missingSecretExitsWithUsageErrorWithoutEchoingSecrets() async throws {
        let process = Process()
        process.executableURL = Self.ringer
        process.arguments = ["serve", "--admin-key", "super-secret-admin-key", "--user-token-secret", "short"]
        process.environment = [:]
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-serve-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.continuation.yield($0.terminationStatus)
            exited.continuation.finish()
        }
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
        process.terminationHandler = {
            exited.continuation.yield($0.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        var status: Int32?
        for await code in exited.stream { status = code }
        #expect(status == 0)
        #expect(String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("ringer serve [flags]"))
    }

    /// Found by review: the per-address cap's refusals (and lws' other warnings) went to libwebsockets' default
    /// log, errors only, so `ringer serve` said nothing while a client was being refused.
    @Test func connectionsRefusedAtThePerAddressCapAreLogged() async throws {
        // The cap does not count loopback peers: connect from this machine's own outward address.
        let probe = try await ChildProcess.run([
            "python3", "-c",
            """
            import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("192.0.2.1", 9)); print(s.getsockname()[0])
            """,
        ])
        let address = probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(
            !address.isEmpty && !address.hasPrefix("127."), "needs a non-loopback IPv4 address: \(probe.standardError)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-serve-cap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = Self.ringer
        // Port 0, read back from the log: a port picked free beforehand can be taken by another test before the
        // server binds it.
        process.arguments = ["serve", "--listen", "0.0.0.0:0", "--max-connections-per-address", "1"]
        process.environment = [
            "RINGER_ADMIN_KEY": "serve-test-admin",
            "RINGER_USER_TOKEN_SECRET": String(repeating: "z", count: 40),
            "RINGER_DATABASE": directory.appendingPathComponent("db.sqlite").path,
        ]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { process.terminate() }
        var port = 0
        for _ in 0..<600 where port == 0 {
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            if let range = text.range(of: "listening http.address=0.0.0.0:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try #require(
            port > 0,
            "ringer serve never said where it listens: \(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self))"
        )
        let holder = try await ChildProcess.run([
            "python3", "-c",
            """
            import socket, time
            # Up to 30 s for the server to listen: a loaded machine starts it slowly.
            for attempt in range(600):
                try: first = socket.create_connection(("\(address)", \(port))); break
                except OSError: time.sleep(0.05)
            else: raise SystemExit("ringer serve never listened")
            time.sleep(0.3)
            second = socket.create_connection(("\(address)", \(port)))
            second.settimeout(2)
            print("refused" if second.recv(1) == b"" else "kept")
            """,
        ])
        #expect(holder.standardOutput.contains("refused"), "\(holder.standardError)")
        var text = ""
        for _ in 0..<40 where !text.contains("per-address cap") {
            try await Task.sleep(for: .milliseconds(50))
            text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        }
        let line = text.split(separator: "\n").first { $0.contains("per-address cap") }
        #expect(line?.contains("warning") == true && line?.contains(address) == true, "\(text)")
    }
}

/// What ships apart from the laboratory (issue 28): `ringer` is the server and its operator commands, linking no
/// simulated phone, sandbox, scenario or benchmark code and taking no test-only flag; `ringer-lab` holds the rest.
@Suite struct ProductBinaryTests {
    @Test func theServerBinaryLinksNoLaboratoryModule() async throws {
        // Swift mangles a module's symbols with its name's length and name (`13RingerSandbox`); `nm` lists them.
        let laboratory = [
            "13RingerSandbox", "15RingerScenarios", "11RingerBench", "17RingerTestSupport", "13RingerTestKit",
        ]
        let product = try await ChildProcess.run(["nm", ServeCommandTests.ringer.path], timeout: 120)
        #expect(product.status == 0, "\(product.standardError)")
        #expect(product.standardOutput.contains("12RingerServer"), "nm read the server's symbols")
        for module in laboratory {
            #expect(!product.standardOutput.contains(module), "ringer links \(module)")
        }
        let lab = try await ChildProcess.run(["nm", ServeCommandTests.ringerLab.path], timeout: 120)
        for module in ["13RingerSandbox", "13RingerTestKit"] {
            #expect(lab.standardOutput.contains(module), "the check can see \(module) where it is linked")
        }
    }

    @Test func theServerPointsLaboratoryCommandsToRingerLab() async throws {
        for command in ["sandbox", "demo", "scenario", "explore", "keys", "bench", "node"] {
            let run = try await ChildProcess.run([ServeCommandTests.ringer.path, command], timeout: 30)
            #expect(run.status == 2, "\(command)")
            #expect(run.standardError.contains("ringer-lab \(command)"), "\(command): \(run.standardError)")
        }
    }

    @Test func theLaboratoryPointsServerCommandsToRinger() async throws {
        for command in ["serve", "copy-database"] {
            let run = try await ChildProcess.run([ServeCommandTests.ringerLab.path, command], timeout: 30)
            #expect(run.status == 2, "\(command)")
            #expect(run.standardError.contains("ringer \(command)"), "\(command): \(run.standardError)")
        }
    }

    @Test func aLabNodeRefusesBadTestFlagsByName() async throws {
        // Each with the flag the error must name.
        for (flags, named) in [
            (["--test-time-scale", "0"], "--test-time-scale"), (["--test-time-scale", "2"], "--test-time-scale"),
            (["--test-time-origin", "1800000000000"], "--test-time-origin"),
            (["--test-time-scale", "0.5", "--test-time-origin", "soon"], "--test-time-origin"),
            (["--test-parent-pid", "1"], "--test-parent-pid"), (["--test-parent-pid", "me"], "--test-parent-pid"),
            (["--test-time-scale"], "--test-time-scale"),
        ] {
            let run = try await ChildProcess.run([ServeCommandTests.ringerLab.path, "node"] + flags, timeout: 30)
            #expect(run.status == 2, "\(flags)")
            #expect(run.standardError.contains(named), "\(flags): \(run.standardError)")
        }
    }
}

/// `ringer-lab sandbox`'s FCM flags as an operator gives them.
@Suite struct SandboxCommandTests {
    @Test func badDemotionSettingsAreRefusedByName() async throws {
        let ringer = ServeCommandTests.ringerLab.path
        for (flag, value) in [
            ("--fcm-demotion-threshold", "0"), ("--fcm-demotion-threshold", "many"),
            ("--fcm-demotion-window", "-5"), ("--fcm-demotion-window", "inf"),
        ] {
            let run = try await ChildProcess.run(
                [ringer, "sandbox", "--listen", "127.0.0.1:0", flag, value], timeout: 60)
            #expect(run.status == 2, "\(flag) \(value)")
            #expect(run.standardError.contains(flag), "\(flag) \(value): \(run.standardError)")
        }
    }

    /// `ringer-lab sandbox` without `--cert`/`--key` makes a throw-away CA in a folder of its own, which is only good while
    /// it runs: SIGTERM removes it.
    @Test func theSandboxRemovesItsThrowAwayCAWhenItStops() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-sandbox-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = ServeCommandTests.ringerLab
        process.arguments = ["sandbox", "--listen", "127.0.0.1:0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let folder = scratch.appendingPathComponent("ringer-sandbox-\(process.processIdentifier)")
        #expect(
            await eventually(within: 20) {
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("ca.pem").path)
                    || ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count >= 3
            }, "the sandbox made no throw-away CA in \(folder.path)")
        try await Task.sleep(for: .milliseconds(300))
        process.terminate()
        #expect(await eventually(within: 10) { !process.isRunning })
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "the throw-away CA outlived the sandbox")
    }
}
