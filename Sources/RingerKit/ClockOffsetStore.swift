public import Foundation
import RingerSupport

/// A learned server-minus-phone clock offset as it is kept across launches, with the phone's boot time (on its
/// wall clock) when it was learned: a wall clock set since (by the user, or by the network's time) moves the
/// boot time, and the offset is then dropped instead of misjudging every push by the change.
public struct StoredClockOffset: Hashable, Sendable {
    /// The server's clock minus the phone's, seconds.
    public var offset: TimeInterval
    /// The phone's wall-clock time of its boot when the offset was learned (``PhoneBootTime``).
    public var bootTime: Date

    /// Creates the record.
    /// - Parameters:
    ///   - offset: the server's clock minus the phone's, seconds.
    ///   - bootTime: the phone's boot time on its wall clock when the offset was learned.
    public init(offset: TimeInterval, bootTime: Date) {
        self.offset = offset
        self.bootTime = bootTime
    }
}

/// Where the server-minus-phone clock offset (``PhoneCallMachine/clockOffset``) survives a relaunch, so a
/// push that wakes a freshly launched app is judged on the server's timeline before any stream connected.
/// Implementations must be thread-safe.
public protocol ClockOffsetStore: Sendable {
    /// The stored offset; nil when none was stored.
    func load() -> StoredClockOffset?
    /// Replaces the stored offset; nil forgets it.
    func save(_ offset: StoredClockOffset?)
}

/// Keeps the offset in memory only (tests, simulated phones, or apps that relearn it every launch).
public final class InMemoryClockOffsetStore: ClockOffsetStore {
    private let offset: LockedValue<StoredClockOffset?>

    /// Creates the store.
    /// - Parameter offset: an offset known already, seconds, learned since this boot; nil for none.
    public init(offset: TimeInterval? = nil) {
        self.offset = LockedValue(offset.map { StoredClockOffset(offset: $0, bootTime: PhoneBootTime.now()) })
    }

    /// The offset held; nil when none.
    public func load() -> StoredClockOffset? { offset.snapshot }
    /// Holds `offset` until the process ends; nil forgets it.
    public func save(_ offset: StoredClockOffset?) { self.offset.withLock { $0 = offset } }
}

/// Keeps the offset in `UserDefaults` (two `Double`s: the offset in seconds, the boot time in seconds since 1970).
public final class UserDefaultsClockOffsetStore: ClockOffsetStore, @unchecked Sendable {
    // `UserDefaults` is thread-safe (Apple: "The UserDefaults class is thread-safe") but not marked Sendable.
    private let defaults: UserDefaults
    private let key: String

    /// Creates the store.
    /// - Parameters:
    ///   - defaults: where to keep it; `.standard` by default.
    ///   - key: the defaults key.
    public init(defaults: UserDefaults = .standard, key: String = "ringer.clockOffset") {
        self.defaults = defaults
        self.key = key
    }

    /// The stored offset; nil when the key holds nothing readable (an offset stored without its boot time,
    /// by an earlier RingerKit, counts as none).
    public func load() -> StoredClockOffset? {
        guard let pair = defaults.array(forKey: key) as? [Double], pair.count == 2 else { return nil }
        return StoredClockOffset(offset: pair[0], bootTime: Date(timeIntervalSince1970: pair[1]))
    }

    /// Stores `offset` under the key; nil removes it.
    public func save(_ offset: StoredClockOffset?) {
        guard let offset else { return defaults.removeObject(forKey: key) }
        defaults.set([offset.offset, offset.bootTime.timeIntervalSince1970], forKey: key)
    }
}
