public import Foundation
import RingerSupport

/// What happened during a run, with milliseconds since the call started, for people (`text`) and
/// machines (``json(_:)``: one object per line with `t_ms`, `event` and the entry's fields).
///
/// An event seen elsewhere (a hosted phone's line, which reaches the driver after the server's reaction to it) is
/// recorded at its own time (`at:`): it is printed when it arrives, so the printed order can differ from its time's,
/// while ``entries`` and each entry's `t_ms` keep the order in which things happened.
///
/// Thread-safe; ``wait(for:timeout:)`` lets a script block until an event shows up.
public final class Timeline: Sendable {
    /// One recorded event.
    public struct Entry: Sendable, Equatable {
        /// Milliseconds since ``start()``.
        public var tMs: Int
        /// Dotted event name, e.g. `apns.sent`.
        public var event: String
        /// Extra fields (never secrets).
        public var fields: [String: Value]
    }

    /// A field value: text or a number (numbers stay numbers in JSON).
    public enum Value: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral,
        ExpressibleByStringInterpolation
    {
        case text(String)
        case number(Double)

        /// A text value from a literal.
        public init(stringLiteral value: String) { self = .text(value) }

        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number):
                number.rounded() == number ? String(Int64(number)) : String(format: "%.1f", number)
            }
        }

        var jsonObject: Any {
            switch self {
            case .text(let text): text
            case .number(let number): number.rounded() == number ? Int64(number) as Any : number as Any
            }
        }
    }

    private struct State {
        var origin = ContinuousClock.now
        /// The wall clock at ``start()``, for events stamped with their own time.
        var originDate = Date()
        var entries: [Entry] = []
        var waiters: [(id: UUID, name: String, continuation: CheckedContinuation<Bool, Never>)] = []
        /// Waits whose timer fired before they started waiting.
        var expired: Set<UUID> = []
    }

    private let state = LockedValue(State())
    /// Held from stamping an entry to the end of its `onRecord`.
    private let emission = LockedValue(())
    private let onRecord: @Sendable (Entry) -> Void

    /// Creates an empty timeline.
    /// - Parameter onRecord: called for each entry as it is recorded (live printing).
    public init(onRecord: @escaping @Sendable (Entry) -> Void = { _ in }) { self.onRecord = onRecord }

    /// Sets time zero to now.
    public func start() {
        state.withLock { state in
            state.origin = .now
            state.originDate = Date()
        }
    }

    /// Records an event.
    /// - Parameters:
    ///   - event: dotted name, e.g. `apns.sent`.
    ///   - text: text fields.
    ///   - numbers: number fields (JSON numbers); nil values are written as `none`.
    ///   - time: when it happened elsewhere, on the wall clock; nil for now.
    public func record(
        _ event: String, _ text: [String: String] = [:], numbers: [String: Double?] = [:], at time: Date? = nil
    ) {
        var fields = text.mapValues(Value.text)
        for (key, number) in numbers { fields[key] = number.map(Value.number) ?? .text("none") }
        // Stamping and live printing happen as one step, so entries recorded on two threads at once are printed
        // in the order of their times (a reader, `ringer-lab demo --json` included, sees time go forward).
        let ready = emission.withLock { _ -> [CheckedContinuation<Bool, Never>] in
            let (entry, ready) = state.withLock { state -> (Entry, [CheckedContinuation<Bool, Never>]) in
                let ms: Int
                if let time {
                    ms = max(0, Int((time.timeIntervalSince(state.originDate) * 1000).rounded()))
                } else {
                    let elapsed = state.origin.duration(to: .now)
                    ms =
                        Int(elapsed.components.seconds * 1000)
                        + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
                }
                let entry = Entry(tMs: ms, event: event, fields: fields)
                // Kept in time order: after the last entry not later than this one.
                let index = state.entries.lastIndex { $0.tMs <= ms }.map { $0 + 1 } ?? 0
                state.entries.insert(entry, at: index)
                let ready = state.waiters.filter { $0.name == event }.map(\.continuation)
                state.waiters.removeAll { $0.name == event }
                return (entry, ready)
            }
            onRecord(entry)
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Everything recorded so far, in the order of the entries' times.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// True when `event` was recorded.
    public func contains(_ event: String) -> Bool { entries.contains { $0.event == event } }

    /// Waits until `event` is recorded (returns at once if it already was).
    /// - Parameter timeout: seconds.
    /// - Returns: false when it did not happen in time.
    public func wait(for event: String, timeout: TimeInterval) async -> Bool {
        let id = UUID()
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool? in
                if state.entries.contains(where: { $0.event == event }) { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters.append((id, event, continuation))
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func expire(_ id: UUID) {
        let expired = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return nil
            }
            return state.waiters.remove(at: index).continuation
        }
        expired?.resume(returning: false)
    }

    /// One line per entry: `+   123 ms  apns.sent  status=200 device=bob-iphone`.
    public static func text(_ entry: Entry) -> String {
        let ms = String(entry.tMs)
        let fields = entry.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "+" + String(repeating: " ", count: max(0, 6 - ms.count)) + ms + " ms  "
            + entry.event.padding(toLength: max(18, entry.event.count + 1), withPad: " ", startingAt: 0) + fields
    }

    /// One JSON object: `{"t_ms":123,"event":"apns.sent","status":"200",…}`.
    public static func json(_ entry: Entry) -> String {
        var object: [String: Any] = ["t_ms": entry.tMs, "event": entry.event]
        for (key, value) in entry.fields where key != "t_ms" && key != "event" { object[key] = value.jsonObject }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
