import Foundation
import RingerSupport

#if canImport(Glibc)
import Glibc
#endif

/// A thread that keeps opening pipes (several at once, so it takes the lowest free numbers, the ones a close just
/// freed) and checks each is still open before closing it itself: code that closes a descriptor it no longer owns
/// closes one of these under it. Tests using it run out of the parallel run, so they judge their own code only.
final class DescriptorWatch: Sendable {
    private let stopping = LockedValue(false)
    private let finished = DispatchSemaphore(value: 0)
    private let closed = LockedValue(0)

    /// Starts watching.
    init() {
        Thread.detachNewThread { [self] in
            while !stopping.withLock({ $0 }) {
                var held: [Int32] = []
                for _ in 0..<8 {
                    var ends: [Int32] = [0, 0]
                    if pipe(&ends) == 0 { held += ends }
                }
                usleep(50)
                for descriptor in held {
                    if fcntl(descriptor, F_GETFD) == -1 { closed.withLock { $0 += 1 } } else { Glibc.close(descriptor) }
                }
            }
            finished.signal()
        }
    }

    /// Stops the thread and waits for it.
    /// - Returns: how many of its descriptors someone else closed.
    func stop() -> Int {
        stopping.withLock { $0 = true }
        finished.wait()
        return closed.withLock { $0 }
    }
}
