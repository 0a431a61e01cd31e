public import Foundation

/// Decides which accepted calls the server ends itself: those whose apps went silent, and those that
/// lasted the maximum duration. Pure: the owner tells it what it knows and feeds the verdicts to
/// ``CallMachine/handle(_:by:at:)`` as ``CallInput/connectionLost`` or ``CallInput/maximumDurationReached``.
///
/// A party is heard from while one of its apps holds an open `/v1/events` socket, and whenever it sends a
/// keepalive or acts on the call. The owner only learns of sockets by looking, once per sweep
/// (``Watched/partyOnline``, ``Watched/wasOnline``), so ``sweep(_:now:)`` moves ``Watched/lastHeard`` to `now`
/// for a call with a party online now or at the previous sweep (its socket may have lasted until just now):
/// a call then ends between ``idleLimit`` and ``idleLimit`` plus one sweep interval after its last socket
/// closed, never early.
///
/// Costs O(watched calls) per sweep.
public struct AcceptedCallWatch: Hashable, Sendable {
    /// One accepted call as the owner sees it at a sweep.
    public struct Watched: Hashable, Sendable {
        /// The call id.
        public var callID: String
        /// When the call was accepted: the maximum duration counts from here.
        public var acceptedAt: Date
        /// The last time either party was heard from (for a call resumed after a restart: the restart).
        public var lastHeard: Date
        /// True when either party holds an open event socket now.
        public var partyOnline: Bool
        /// True when either party held one at the previous sweep.
        public var wasOnline: Bool

        /// Creates the view of a call.
        public init(callID: String, acceptedAt: Date, lastHeard: Date, partyOnline: Bool, wasOnline: Bool = false) {
            self.callID = callID
            self.acceptedAt = acceptedAt
            self.lastHeard = lastHeard
            self.partyOnline = partyOnline
            self.wasOnline = wasOnline
        }
    }

    /// A call to end, and the input that ends it.
    public struct Ending: Hashable, Sendable {
        /// The call id.
        public var callID: String
        /// ``CallInput/connectionLost`` or ``CallInput/maximumDurationReached``.
        public var input: CallInput

        /// Creates an ending.
        public init(callID: String, input: CallInput) {
            self.callID = callID
            self.input = input
        }
    }

    /// What one sweep decided.
    public struct Sweep: Hashable, Sendable {
        /// Calls to end (``CallInput/maximumDurationReached`` wins when both limits passed).
        public var ends: [Ending] = []
        /// Calls to keep, with their last-heard time (moved to the sweep's `now` when a party was online now or
        /// at the previous sweep).
        public var lastHeard: [String: Date] = [:]
        /// The earliest time a kept call may have to end, if it stays silent; nil when none is kept.
        public var nextDeadline: Date?
    }

    /// Seconds neither party may be heard from before the call ends ``SystemEndReason/connectionLost``.
    public var idleLimit: TimeInterval
    /// Seconds after acceptance at which the call ends ``SystemEndReason/maximumDuration``.
    public var maximumDuration: TimeInterval

    /// Creates the watch.
    /// - Parameters:
    ///   - idleLimit: seconds, more than 0.
    ///   - maximumDuration: seconds, more than 0.
    public init(idleLimit: TimeInterval, maximumDuration: TimeInterval) {
        self.idleLimit = idleLimit
        self.maximumDuration = maximumDuration
    }

    /// Decides, for each call, whether it ends now.
    /// - Parameters:
    ///   - calls: the accepted calls being watched.
    ///   - now: the current time.
    /// - Returns: the calls to end, the last-heard times of the others, and the next deadline among them.
    public func sweep(_ calls: [Watched], now: Date) -> Sweep {
        var result = Sweep()
        for call in calls {
            let lastHeard = call.partyOnline || call.wasOnline ? max(call.lastHeard, now) : call.lastHeard
            let lastMoment = call.acceptedAt.addingTimeInterval(maximumDuration)
            let silentUntil = lastHeard.addingTimeInterval(idleLimit)
            if now >= lastMoment {
                result.ends.append(Ending(callID: call.callID, input: .maximumDurationReached))
            } else if now >= silentUntil {
                result.ends.append(Ending(callID: call.callID, input: .connectionLost))
            } else {
                result.lastHeard[call.callID] = lastHeard
                let deadline = min(lastMoment, silentUntil)
                result.nextDeadline = min(result.nextDeadline ?? deadline, deadline)
            }
        }
        return result
    }
}
