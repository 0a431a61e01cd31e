import RingerSupport

/// Monotonic time that moves only when the test says (``advance(_:)``): `ContinuousClock` instants from the
/// moment it was made, for code that takes an injected `() -> ContinuousClock.Instant` (token ages in the APNs
/// provider token and the FCM access-token cache). Thread-safe.
public final class ManualClock: Sendable {
    private let origin = ContinuousClock.now
    private let offset = LockedValue<Duration>(.zero)

    /// A clock standing at the current instant.
    public init() {}

    /// Moves the clock forward.
    /// - Parameter duration: how far.
    public func advance(_ duration: Duration) { offset.withLock { $0 += duration } }

    /// The instant the clock shows: its start plus every ``advance(_:)``.
    public var now: ContinuousClock.Instant { origin + offset.withLock { $0 } }
}
