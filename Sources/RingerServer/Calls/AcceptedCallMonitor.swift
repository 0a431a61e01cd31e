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
///
/// A group call is watched twice over (decision 0007 §5): as a call, heard from whenever any of its parties is
/// (ended `connection_lost` when none is, `max_duration` as a 1:1 call), and per callee in it, a *leg* heard from
/// only when that callee is: a silent leg is fed ``CallInput/legConnectionLost(userID:)``, so a callee whose phone
/// died leaves the call instead of keeping their user busy. Thread-safe.
final class AcceptedCallMonitor: Sendable {
    private struct Entry: Sendable {
        /// The users whose sockets and actions keep the entry alive: a call's parties, or a leg's callee.
        var parties: [String]
        let acceptedAt: Date
        var lastHeard: Date
        /// Whether a party held an event socket at the previous sweep.
        var wasOnline = false
        /// Set for a leg's entry: its call and callee.
        var leg: (callID: String, userID: String)?
    }

    /// The key of a leg's entry beside its call's (a call id is a UUID and a user id has no space).
    private static func legKey(_ callID: String, _ userID: String) -> String { callID + " " + userID }

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
    ///   A group call's accepted legs are watched too (``watchLeg(callID:userID:acceptedAt:lastHeard:)``).
    func watch(_ call: Call, lastHeard: Date) {
        let joined = call.legs?.filter { $0.state == .accepted } ?? []
        let parties = [call.caller.id] + (call.legs == nil ? [call.callee.id] : joined.map(\.user.id))
        let entry = Entry(parties: parties, acceptedAt: call.acceptedAt ?? lastHeard, lastHeard: lastHeard)
        calls.withLock { calls in if calls[call.callID] == nil { calls[call.callID] = entry } }
        for leg in joined {
            watchLeg(
                callID: call.callID, userID: leg.user.id, acceptedAt: leg.acceptedAt ?? lastHeard, lastHeard: lastHeard)
        }
    }

    /// Starts watching a callee in a group call (again, after a restart); a leg already watched keeps its entry.
    /// - Parameters:
    ///   - acceptedAt: when the callee joined.
    ///   - lastHeard: when the callee was last heard from: the accept, or the restart.
    func watchLeg(callID: String, userID: String, acceptedAt: Date, lastHeard: Date) {
        let entry = Entry(
            parties: [userID], acceptedAt: acceptedAt, lastHeard: lastHeard, leg: (callID, userID))
        calls.withLock { calls in
            let key = Self.legKey(callID, userID)
            if calls[key] == nil { calls[key] = entry }
            // The call is kept alive by its callees in it as much as by its caller.
            if let parties = calls[callID]?.parties, !parties.contains(userID) { calls[callID]?.parties.append(userID) }
        }
    }

    /// The callee left the group call: forget their leg (the call's watch stays).
    func stopWatchingLeg(callID: String, userID: String) {
        calls.withLock { calls in
            calls[Self.legKey(callID, userID)] = nil
            calls[callID]?.parties.removeAll { $0 == userID }
        }
    }

    /// The call is over: forget it, and its legs.
    func stopWatching(callID: String) {
        calls.withLock { calls in
            calls[callID] = nil
            calls = calls.filter { $0.value.leg?.callID != callID }
        }
    }

    /// A party of the call was heard from (a keepalive or a call action); no effect on a call not watched.
    /// - Parameter user: who, when known: their leg of a group call is heard from too.
    func heard(callID: String, user: String? = nil, at now: Date) {
        calls.withLock { calls in
            var keys = [callID]
            if let user { keys.append(Self.legKey(callID, user)) }
            for key in keys {
                if let last = calls[key]?.lastHeard, last < now { calls[key]?.lastHeard = now }
            }
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
            var online = false
            for party in entry.parties where !online { online = await isOnline(party) }
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
        for ending in due {
            guard let leg = snapshot[ending.callID]?.leg else {
                await end(ending.callID, ending.input)
                continue
            }
            // A leg's longest time is its call's, which the call's own entry ends.
            if ending.input == .connectionLost { await end(leg.callID, .legConnectionLost(userID: leg.userID)) }
        }
        let regular = now.addingTimeInterval(sweepInterval)
        return min(regular, verdict.nextDeadline ?? regular)
    }
}
