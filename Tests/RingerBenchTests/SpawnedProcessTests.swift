import Foundation
import Testing

@testable import RingerBench

/// The harness's child processes: exit status, output files, rusage, and the kill on timeout.
struct SpawnedProcessTests {
    private func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func reportsStatusOutputAndUsage() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try SpawnedProcess(
            ["sh", "-c", "echo out; echo err >&2; exit 3"],
            standardOutput: directory.appendingPathComponent("out"),
            standardError: directory.appendingPathComponent("err"))
        let exit = await process.finish(within: .seconds(30))
        #expect(exit.status == 3)
        #expect(!exit.timedOut)
        #expect(exit.usage.maxRSSKiB > 0)
        #expect(try String(contentsOf: process.standardOutput, encoding: .utf8) == "out\n")
        #expect(process.standardErrorTail() == "err")
        #expect(process.exitIfEnded?.status == 3)
    }

    @Test func killsAChildThatRunsTooLong() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try SpawnedProcess(
            ["sleep", "30"], standardOutput: directory.appendingPathComponent("out"),
            standardError: directory.appendingPathComponent("err"))
        let started = ContinuousClock.now
        let exit = await process.finish(within: .milliseconds(200))
        #expect(exit.timedOut)
        #expect(exit.status == 128 + SIGKILL)
        #expect(started.duration(to: .now) < .seconds(10))
    }

    @Test func aChildStartsWithNoSignalBlockedWhateverTheParentBlocks() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The parent thread blocks SIGTERM (as a process that waits for it on a thread does) while it spawns.
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let spawned = Result {
            try SpawnedProcess(
                ["grep", "SigBlk", "/proc/self/status"],
                standardOutput: directory.appendingPathComponent("out"),
                standardError: directory.appendingPathComponent("err"))
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let process = try spawned.get()
        #expect(await process.finish(within: .seconds(30)).status == 0)
        let line = try String(contentsOf: process.standardOutput, encoding: .utf8)
        #expect(line.hasPrefix("SigBlk:"))
        #expect(
            line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespacesAndNewlines).allSatisfy { $0 == "0" })
    }

    @Test func aMissingProgramIsAnError() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: BenchmarkError.self) {
            try SpawnedProcess(
                ["ringer-no-such-program"], standardOutput: directory.appendingPathComponent("out"),
                standardError: directory.appendingPathComponent("err"))
        }
    }
}
