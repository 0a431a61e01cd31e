import RingerSupport

/// Collects what callbacks on other threads report, in order.
final class Recorder<Event: Sendable>: Sendable {
    private let events = LockedValue<[Event]>([])

    func record(_ event: Event) { events.withLock { $0.append(event) } }

    var all: [Event] { events.snapshot }
}
