#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import RingerRedis
import Testing

@Suite struct BrokenPipeSignalTests {
    @Test func writeToAClosedSocketFailsWithEPIPEAndLeavesTheSignalMaskAsItWas() throws {
        var disposition = sigaction()
        sigaction(SIGPIPE, nil, &disposition)
        // With SIGPIPE ignored process-wide the guard is not needed, and this test could not fail.
        #if canImport(Glibc)
        try #require(disposition.__sigaction_handler.sa_handler == nil, "SIGPIPE is not at its default action here")
        #else
        try #require(disposition.__sigaction_u.__sa_handler == nil, "SIGPIPE is not at its default action here")
        #endif

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
