/// Holds JavaScript's events while no JavaScript instance listens, and hands them over once: to the first
/// `getInitialEvents()` of each instance (``attach()``). While attached, each event goes out at once. Pinned by
/// TestVectors/react-native/relay.json; the Kotlin half's `EventRelay` follows the same rules. A pure value: no
/// I/O, not thread-safe (its owner serialises the calls).
///
/// - The buffer keeps the newest ``capacity`` events and counts the ones it dropped; a replay then starts with
///   ``BridgeEvent/eventsDropped(count:)``.
/// - An ``BridgeEvent/audioRouteChanged(current:outputs:)`` is a state, not a story: a newer one takes the place of
///   the one kept, so a replay holds only where the audio goes now (the route is read once at every launch).
/// - ``detach()`` is the module being invalidated (a JavaScript reload, or the React host destroyed while the
///   process lives on): what happens next waits for the next instance's first ``attach()``.
struct EventRelay: Sendable {
    /// The buffer's size in production: a cold start's call and a reconnecting stream fit many times over.
    static let defaultCapacity = 200

    /// How many events the buffer keeps.
    let capacity: Int
    /// True between an ``attach()`` and the next ``detach()``.
    private(set) var isAttached = false
    private var buffer: [BridgeEvent] = []
    private var dropped = 0

    /// Creates an empty, detached relay.
    /// - Parameter capacity: how many events to keep while detached; at least 1.
    init(capacity: Int = EventRelay.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// An event for JavaScript.
    /// - Parameter event: the event.
    /// - Returns: what to emit now: the event when attached, nothing when it was kept.
    mutating func send(_ event: BridgeEvent) -> [BridgeEvent] {
        guard !isAttached else { return [event] }
        if case .audioRouteChanged = event { buffer.removeAll { $0.type == event.type } }
        buffer.append(event)
        if buffer.count > capacity {
            buffer.removeFirst(buffer.count - capacity)
            dropped += 1
        }
        return []
    }

    /// A JavaScript instance asked for what happened before it (`getInitialEvents()`).
    /// - Returns: the kept events, oldest first, after an ``BridgeEvent/eventsDropped(count:)`` if any were
    ///   dropped; nothing when this instance already attached.
    mutating func attach() -> [BridgeEvent] {
        guard !isAttached else { return [] }
        isAttached = true
        defer {
            buffer.removeAll()
            dropped = 0
        }
        return (dropped > 0 ? [.eventsDropped(count: dropped)] : []) + buffer
    }

    /// The JavaScript instance went away: events are kept again until the next ``attach()``.
    mutating func detach() {
        isAttached = false
    }
}
