import Foundation
import RingerTestKit
import Testing

/// The one child-process type of the laboratory and the tests: exit status, output files, rusage, the kill on
/// timeout, and what a child inherits.
struct ChildProcessTests {
    private func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-child-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func reportsStatusOutputAndUsage() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try ChildProcess(
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
        let process = try ChildProcess(
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
            try ChildProcess(
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
        #expect(throws: TestSupportError.self) {
            try ChildProcess(
                ["ringer-no-such-program"], standardOutput: directory.appendingPathComponent("out"),
                standardError: directory.appendingPathComponent("err"))
        }
    }

    @Test func aChildSentSIGTERMForRunningTooLongIsKilledAfterItsGrace() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try ChildProcess(
            ["sh", "-c", "trap '' TERM; sleep 30"], standardOutput: directory.appendingPathComponent("out"),
            standardError: directory.appendingPathComponent("err"))
        let exit = await process.finish(within: .milliseconds(200), grace: .milliseconds(300))
        #expect(exit.timedOut)
        #expect(exit.status == 128 + SIGKILL)
    }

    @Test func aChildInheritsNoDescriptorButItsStandardOnes() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A pipe without close-on-exec, as Foundation's Pipe makes one: a long-lived child holding its write end
        // would keep a peer reading the other end from ever seeing its input end.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let process = try ChildProcess(
            ["ls", "/proc/self/fd"], standardOutput: directory.appendingPathComponent("out"),
            standardError: directory.appendingPathComponent("err"))
        #expect(await process.finish(within: .seconds(30)).status == 0)
        let listed = try String(contentsOf: process.standardOutput, encoding: .utf8).split(separator: "\n")
        // 0, 1, 2, and the descriptor `ls` opened to read the directory.
        #expect(
            !listed.contains(Substring(String(ends[0]))) && !listed.contains(Substring(String(ends[1]))), "\(listed)")
    }

    @Test func runReportsStatusAndOutputAndRunsInTheDirectoryGiven() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await ChildProcess.run(["sh", "-c", "pwd; echo err >&2; exit 4"], in: directory)
        #expect(outcome.status == 4)
        #expect(outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == directory.path)
        #expect(outcome.standardError == "err\n")
        await #expect(throws: TestSupportError.self) { try await ChildProcess.check(["false"]) }
    }

    @Test func runTerminatesAChildPastItsTimeout() async throws {
        let started = ContinuousClock.now
        let error = await #expect(throws: TestSupportError.self) {
            try await ChildProcess.run(["sleep", "30"], timeout: 0.2)
        }
        #expect(error?.isTimeout == true)
        #expect(started.duration(to: .now) < .seconds(10))
    }

    @Test func readsCPUTimeFromProcStatEvenWithParenthesesInTheName() {
        // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
        let stat = "4242 (we(ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0"
        #expect(ProcessUsage.cpuSeconds(procStat: stat, ticksPerSecond: 100) == 3.0)
        #expect(ProcessUsage.cpuSeconds(procStat: "garbage", ticksPerSecond: 100) == nil)
        #expect(ProcessUsage.cpuSecondsSoFar(pid: getpid()) != nil)
    }
}
