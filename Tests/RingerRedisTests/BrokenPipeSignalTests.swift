import Testing

@testable import RingerRedis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct BrokenPipeSignalTests {
    /// Whether SIGPIPE is at its default action (killing the process) in this test process. Other suites of the
    /// whole test run (servers) ignore it process-wide; there the guard is not needed and this test could not fail,
    /// so it runs only where it can (`swift test --filter RingerRedisTests`).
    static var sigpipeKills: Bool {
        var disposition = sigaction()
        sigaction(SIGPIPE, nil, &disposition)
        #if canImport(Glibc)
        return disposition.__sigaction_handler.sa_handler == nil
        #else
        return disposition.__sigaction_u.__sa_handler == nil
        #endif
    }

    @Test(.enabled(if: BrokenPipeSignalTests.sigpipeKills, "SIGPIPE is ignored process-wide in this test process"))
    func writeToAClosedSocketFailsWithEPIPEAndLeavesTheSignalMaskAsItWas() throws {

        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        #else
        try #require(socketpair(AF_UNIX, SOCK_STREAM, 0, &ends) == 0)
        #endif
        defer { close(ends[0]) }
        close(ends[1])
        let (written, code) = BrokenPipeSignal.whileBlocked { () -> (Int, Int32) in
            var byte: UInt8 = 1
            let written = write(ends[0], &byte, 1)
            return (written, errno)
        }
        #expect(written == -1)
        #expect(code == EPIPE)
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0)
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0)
    }
}
