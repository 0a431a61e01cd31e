#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a write to a socket Redis closed from killing the process with SIGPIPE, on the caller's thread and
/// only for the call: hiredis 0.14 writes with write(2), which has no MSG_NOSIGNAL, and commands run on
/// threads this module does not own (so it must not leave their signal mask changed). libpq's technique
/// (fe-secure.c, pq_block_sigpipe): block SIGPIPE, do the I/O, take away a SIGPIPE that the I/O raised,
/// restore the mask. The write then fails with EPIPE, which hiredis reports as an I/O error.
enum BrokenPipeSignal {
    /// Runs `body` with SIGPIPE blocked on this thread, discarding a SIGPIPE that `body` raised.
    static func whileBlocked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        // A SIGPIPE pending before the call belongs to someone else: leave it.
        let pendingBefore = sigismember(&pending, SIGPIPE) == 1
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        defer {
            if !pendingBefore {
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    // Pending and blocked, so sigwait returns at once.
                    var taken: Int32 = 0
                    sigwait(&pipeOnly, &taken)
                }
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }
}
