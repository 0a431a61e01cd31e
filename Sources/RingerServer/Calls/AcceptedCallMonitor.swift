import Foundation
import RingerCore
import RingerSupport
import RingerWire

/// Carries out ``AcceptedCallWatch``: keeps the accepted calls and when each was last heard from in memory,
/// sweeps them every ``sweepInterval`` seconds (and at the earliest deadline, so a maximum duration ends on
/// time), and hands each verdict to the `end` given to ``start(end:)``.
///
/// Nothing of it needs storing: the calls come from the store at start (``watch(_:lastHeard:)`` with the
/// restart as their last-heard time) and their maximum duration counts from the stored `accepted_at`.
/// Thread-safe.
final class AcceptedCallMonitor: Sendable {
    private struct Entry: Sendable {
        let callerID: String
        let calleeID: String
        let acceptedAt: Date
        var lastHeard: Date
        /// Whether a party held an event socket at the previous sweep.
        var wasOnline = false
    }

    private let watch: AcceptedCallWatch
    private let clock: any ServerClock
    /// Seconds between sweeps: at most 10, and a quarter of the idle limit when that is shorter.
    let sweepInterval: TimeInterval
    private let isOnline: @Sendable (String) async -> Bool
    private let calls = LockedValue<[String: Entry]>([:])
    private let loop = LockedValue<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - watch: the limits.
    ///   - clock: the server's clock.
    ///   - isOnline: whether a user holds an open event socket now, on this server (``EventHub/isOnline(userID:)``)
    ///     or another of its cluster.
    init(watch: AcceptedCallWatch, clock: any ServerClock, isOnline: @escaping @Sendable (String) async -> Bool) {
        self.watch = watch
        self.clock = clock
        sweepInterval = min(10, max(0.01, watch.idleLimit / 4))
        self.isOnline = isOnline
    }

    /// Starts watching an accepted call (again, after a restart); a call already watched keeps its entry.
    /// - Parameters:
    ///   - call: an accepted call (a call without `acceptedAt` counts from `lastHeard`).
    ///   - lastHeard: when a party was last heard from: the accept, or the restart.
    func watch(_ call: Call, lastHeard: Date) {
        let entry = Entry(
            callerID: call.caller.id, calleeID: call.callee.id, acceptedAt: call.acceptedAt ?? lastHeard,
            lastHeard: lastHeard)
        calls.withLock { calls in if calls[call.callID] == nil { calls[call.callID] = entry } }
    }

    /// The call is over: forget it.
    func stopWatching(callID: String) {
        calls.withLock { _ = $0.removeValue(forKey: callID) }
    }

    /// A party of the call was heard from (a keepalive or a call action); no effect on a call not watched.
    func heard(callID: String, at now: Date) {
        calls.withLock { calls in
            if let last = calls[callID]?.lastHeard, last < now { calls[callID]?.lastHeard = now }
        }
    }

    /// How many calls are watched (tests and diagnostics).
    var count: Int { calls.withLock { $0.count } }

    /// Starts the periodic sweep; a second call does nothing.
    /// - Parameter end: feeds a verdict to its call (``CallService``); the call stays watched until it is over.
    func start(end: @escaping @Sendable (String, CallInput) async -> Void) {
        loop.withLock { loop in
            guard loop == nil else { return }
            loop = Task { [weak self] in
                while !Task.isCancelled, let self {
                    let next = await self.sweep(end: end)
                    do { try await self.clock.sleep(until: next) } catch { return }
                }
            }
        }
    }

    /// Stops the sweep.
    func shutdown() {
        loop.withLock { loop in
            loop?.cancel()
            loop = nil
        }
    }

    /// Decides once and ends the calls due.
    /// - Parameter end: feeds a verdict to its call.
    /// - Returns: when to sweep next.
    @discardableResult
    func sweep(end: @Sendable (String, CallInput) async -> Void) async -> Date {
        let now = clock.now()
        let snapshot = calls.withLock { $0 }
        var views: [AcceptedCallWatch.Watched] = []
        for (id, entry) in snapshot {
            let online = await isOnline(entry.callerID) ? true : await isOnline(entry.calleeID)
            views.append(
                AcceptedCallWatch.Watched(
                    callID: id, acceptedAt: entry.acceptedAt, lastHeard: entry.lastHeard,
                    partyOnline: online, wasOnline: entry.wasOnline))
        }
        let verdict = watch.sweep(views, now: now)
        // A keepalive between the snapshot and here wins over `connectionLost`.
        let due = calls.withLock { calls -> [AcceptedCallWatch.Ending] in
            for view in views { calls[view.callID]?.wasOnline = view.partyOnline }
            for (id, heard) in verdict.lastHeard {
                if let old = calls[id]?.lastHeard, old < heard { calls[id]?.lastHeard = heard }
            }
            return verdict.ends.filter { ending in
                ending.input != .connectionLost || calls[ending.callID]?.lastHeard == snapshot[ending.callID]?.lastHeard
            }
        }
        for ending in due { await end(ending.callID, ending.input) }
        let regular = now.addingTimeInterval(sweepInterval)
        return min(regular, verdict.nextDeadline ?? regular)
    }
}
