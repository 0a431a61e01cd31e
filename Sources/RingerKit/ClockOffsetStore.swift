public import Foundation
import RingerSync

/// Where the server-minus-phone clock offset (``PhoneCallMachine/clockOffset``) survives a relaunch, so a
/// push that wakes a freshly launched app is judged on the server's timeline before any stream connected.
/// Implementations must be thread-safe.
public protocol ClockOffsetStore: Sendable {
    /// The stored offset, seconds; nil when none was stored.
    func load() -> TimeInterval?
    /// Replaces the stored offset, seconds.
    func save(_ offset: TimeInterval)
}

/// Keeps the offset in memory only (tests, simulated phones, or apps that relearn it every launch).
public final class InMemoryClockOffsetStore: ClockOffsetStore {
    private let offset: LockedValue<TimeInterval?>

    /// Creates the store.
    /// - Parameter offset: an offset known already, seconds; nil for none.
    public init(offset: TimeInterval? = nil) { self.offset = LockedValue(offset) }
    /// The offset held, seconds; nil when none.
    public func load() -> TimeInterval? { offset.snapshot }
    /// Holds `offset`, seconds, until the process ends.
    public func save(_ offset: TimeInterval) { self.offset.withLock { $0 = offset } }
}

/// Keeps the offset in `UserDefaults` (one `Double`, seconds).
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

    /// The stored offset, seconds; nil when the key holds nothing.
    public func load() -> TimeInterval? {
        defaults.object(forKey: key) == nil ? nil : defaults.double(forKey: key)
    }

    /// Stores `offset`, seconds, under the key.
    public func save(_ offset: TimeInterval) { defaults.set(offset, forKey: key) }
}
