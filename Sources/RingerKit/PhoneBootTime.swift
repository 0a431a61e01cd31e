public import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// When the phone booted, on its own wall clock: now minus the time since boot, sleep included. It stays put
/// while the wall clock runs and moves by exactly the change when the wall clock is set, which is how RingerKit
/// notices that a learned clock offset no longer holds (Android's equivalent is `System.currentTimeMillis()`
/// minus `SystemClock.elapsedRealtime()`).
public enum PhoneBootTime {
    /// Seconds a boot time may wander (clock reads, the wall clock's own slewing) before the wall clock counts as
    /// set: the same 2 s within which two clock samples count as one clock.
    public static let tolerance: TimeInterval = 2

    /// The boot time now: `Date()` minus the time since boot counted by a clock that keeps running while the
    /// phone sleeps (`CLOCK_MONOTONIC` on Apple platforms, `CLOCK_BOOTTIME` on Linux).
    public static func now() -> Date {
        var time = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_MONOTONIC, &time)
        #else
        clock_gettime(CLOCK_BOOTTIME, &time)
        #endif
        return Date(timeIntervalSinceNow: -(Double(time.tv_sec) + Double(time.tv_nsec) / 1e9))
    }

    /// Whether the wall clock was set between two boot-time readings.
    /// - Parameters:
    ///   - earlier: the boot time read then.
    ///   - later: the boot time read now.
    /// - Returns: true when they differ by more than ``tolerance``.
    public static func wallClockWasSet(between earlier: Date, and later: Date) -> Bool {
        abs(later.timeIntervalSince(earlier)) > tolerance
    }
}
