import CUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps lws 4.1's second close of a context's event pipe from closing another thread's descriptor.
///
/// lws 4.1.6 on a libuv loop closes the event pipe (its `eventfd`, behind `lws_cancel_service`) twice while a
/// context is destroyed: `lws_destroy_event_pipe` starts libuv's asynchronous close of the pipe's poll handle and
/// then closes the descriptor at once (`lws_plat_pipe_close`), and when libuv reports the handle closed, during
/// the loop turns that finish the destruction, `__lws_close_free_wsi_final` closes the same number again (lws
/// fixed it after 4.1 by forgetting the number in `lws_plat_pipe_close`). Between the two closes the number is
/// free, and the lowest free number is what the next `open`, `socket` or `pipe` of any thread gets: a parallel
/// test run lost another server's `lws_create_context` to it (its `scandir` of lws' plugin folder got EBADF).
///
/// Two things keep the number from anyone else:
/// - **Holes below it.** Before the context is made, ``holeCount`` placeholders take the lowest free numbers, so
///   the event pipe gets a higher one; they are held while the server runs and closed just before the first
///   `lws_context_destroy` (``destroyWillBegin()``). Descriptors other threads open in the instants that follow get
///   those lower numbers, not the pipe's.
/// - **The number taken back.** ``reclaim()`` runs right after the first `lws_context_destroy` returns and before
///   every callback lws makes meanwhile, and duplicates a placeholder onto the number once it is free; lws' second
///   close then closes the placeholder. One that lws did not close (an lws without the bug) is closed by
///   ``release()``: it is a duplicate of a pipe this type owns, so its inode tells it from a later file that got
///   the same number.
///
/// Cost: ``holeCount`` descriptors per running server. Service thread only.
final class EventPipeReclaim {
    /// How many placeholders hold numbers below the event pipe's: more than the descriptors other threads could
    /// open between lws' first close and ``reclaim()`` (microseconds).
    static let holeCount = 16

    /// The pipe the placeholders duplicate; -1 once closed.
    private var source: (read: Int32, write: Int32)
    /// Placeholders below the event pipe's number, until ``destroyWillBegin()``.
    private var holes: [Int32] = []
    /// The event pipe's number, once ``attach(to:)`` found it.
    private var number: Int32?
    /// Whether the context is being destroyed (``destroyWillBegin()`` ran): only then does ``reclaim()`` act.
    private var isDestroying = false
    /// Whether a placeholder took the number back.
    private var isHeld = false

    /// Takes ``holeCount`` of the lowest free numbers; call just before `lws_create_context`.
    /// - Returns: nil when no pipe can be made for the placeholders; the server then runs unguarded.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        source = (ends[0], ends[1])
        for _ in 0..<Self.holeCount {
            let hole = fcntl(ends[0], F_DUPFD_CLOEXEC, 0)
            if hole >= 0 { holes.append(hole) }
        }
    }

    deinit {
        release()
    }

    /// Finds the event pipe among the poll handles on `loop`, the one descriptor that is no socket (lws watches
    /// its connections and the pipe there, the wrapper its listening socket), and gives back the placeholders
    /// that are not below it. Call right after `lws_create_context`.
    func attach(to loop: UnsafeMutablePointer<uv_loop_t>) {
        var found: [Int32] = []
        withUnsafeMutablePointer(to: &found) { found in
            uv_walk(
                loop,
                { handle, argument in
                    guard let handle, let found = argument?.assumingMemoryBound(to: [Int32].self),
                        uv_handle_get_type(handle) == UV_POLL
                    else { return }
                    var descriptor: uv_os_fd_t = -1
                    var status = stat()
                    guard uv_fileno(handle, &descriptor) == 0, fstat(descriptor, &status) == 0,
                        status.st_mode & S_IFMT != S_IFSOCK
                    else { return }
                    found.pointee.append(descriptor)
                }, found)
        }
        guard found.count == 1, source.read >= 0 else { return release() }
        let number = found[0]
        self.number = number
        // Another thread may have freed a lower number while the context was made, and the pipe took it: the
        // holes must be below the pipe, so those above go, and free numbers below it are taken instead.
        let above = holes.filter { $0 > number }
        holes.removeAll { $0 > number }
        above.forEach { close($0) }
        while holes.count < Self.holeCount {
            let hole = fcntl(source.read, F_DUPFD_CLOEXEC, 0)
            guard hole >= 0 else { break }
            guard hole < number else {
                close(hole)
                break
            }
            holes.append(hole)
        }
    }

    /// Opens the holes below the event pipe's number; call just before the first `lws_context_destroy`.
    func destroyWillBegin() {
        isDestroying = true
        holes.forEach { close($0) }
        holes.removeAll()
    }

    /// Takes the number back for a placeholder if lws' first close has freed it; nothing before
    /// ``destroyWillBegin()`` (it runs before every lws callback) or once it has.
    func reclaim() {
        guard isDestroying, let number, !isHeld, source.read >= 0 else { return }
        // F_DUPFD gives the lowest free number at or above `number`: `number` itself once it is free. Any other
        // (the pipe is still open, or another thread was quicker) is given back, and the next call tries again.
        let duplicate = fcntl(source.read, F_DUPFD_CLOEXEC, number)
        if duplicate == number {
            isHeld = true
        } else if duplicate >= 0 {
            close(duplicate)
        }
    }

    /// Ends the guard once the context is destroyed (or was never made): closes the placeholders lws did not
    /// close, and the pipe. Idempotent.
    func release() {
        guard source.read >= 0 else { return }
        destroyWillBegin()
        if isHeld, let number, refersToSource(number) { close(number) }
        close(source.read)
        close(source.write)
        source = (-1, -1)
    }

    /// Whether `descriptor` is open on this guard's pipe.
    private func refersToSource(_ descriptor: Int32) -> Bool {
        var mine = stat()
        var there = stat()
        guard fstat(source.read, &mine) == 0, fstat(descriptor, &there) == 0 else { return false }
        return mine.st_dev == there.st_dev && mine.st_ino == there.st_ino
    }
}
