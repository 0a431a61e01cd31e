import Foundation
internal import RingerWire

/// One call that rang or was placed on this phone, as `getCallHistory` returns it (docs/react-native.md, "Methods";
/// `HistoryEntry` in react-native/src/types.ts), written when the call ends.
struct HistoryEntry: Codable, Sendable, Hashable {
    /// The server's call id.
    var callID: String
    /// `incoming` or `outgoing`.
    var direction: String
    /// The other party.
    var peer: Party
    /// Whether the call offered video.
    var hasVideo: Bool
    /// When it rang here or was placed, Unix milliseconds on the phone's clock.
    var startedAt: Int64
    /// Whether media started (``BridgeEvent/accepted(callID:direction:media:)``).
    var answered: Bool
    /// When it ended here, Unix milliseconds on the phone's clock.
    var endedAt: Int64
    /// As in ``BridgeEvent/ended(callID:reason:serverReason:)``.
    var reason: String
    /// As in ``BridgeEvent/ended(callID:reason:serverReason:)``.
    var serverReason: String?

    /// Creates an entry.
    init(
        callID: String, direction: String, peer: Party, hasVideo: Bool, startedAt: Int64, answered: Bool,
        endedAt: Int64, reason: String, serverReason: String?
    ) {
        self.callID = callID
        self.direction = direction
        self.peer = peer
        self.hasVideo = hasVideo
        self.startedAt = startedAt
        self.answered = answered
        self.endedAt = endedAt
        self.reason = reason
        self.serverReason = serverReason
    }

    /// Decodes an entry (the history file, or JavaScript's shape).
    /// - Throws: `DecodingError` when a key is missing or malformed.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CallKeys.self)
        self.init(
            callID: try container.decode(String.self, forKey: .callId),
            direction: try container.decode(String.self, forKey: .direction),
            peer: try container.decode(BridgeParty.self, forKey: .peer).party,
            hasVideo: try container.decode(Bool.self, forKey: .hasVideo),
            startedAt: try container.decode(Int64.self, forKey: .startedAt),
            answered: try container.decode(Bool.self, forKey: .answered),
            endedAt: try container.decode(Int64.self, forKey: .endedAt),
            reason: try container.decode(String.self, forKey: .reason),
            serverReason: try container.decodeIfPresent(String.self, forKey: .serverReason))
    }

    /// Encodes every key, `serverReason` and the peer's `name` as null when absent.
    /// - Throws: `EncodingError` only if the encoder refuses a value.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CallKeys.self)
        try container.encodeCall(callID, direction, peer, hasVideo)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(answered, forKey: .answered)
        try container.encode(endedAt, forKey: .endedAt)
        try container.encode(reason, forKey: .reason)
        try container.encode(serverReason, forKey: .serverReason)
    }
}

/// The phone's call history, built from the events JavaScript is sent (so it holds the calls JavaScript hears of,
/// and says what they said): a call opens at `incoming` or `outgoing`, is marked answered at `accepted`, and
/// becomes an entry at `ended`. Newest first, at most ``limit``. A pure value; its owner keeps ``entries`` in a
/// file. A call still up when the process dies leaves no entry.
struct CallHistory: Sendable {
    /// How many entries are kept.
    static let limit = 100

    /// The finished calls, newest first.
    private(set) var entries: [HistoryEntry]
    /// Calls that rang or were placed and have not ended, by call id.
    private var open: [String: HistoryEntry] = [:]

    /// Creates a history holding `entries` (as stored), newest first.
    init(entries: [HistoryEntry] = []) {
        self.entries = Array(entries.prefix(Self.limit))
    }

    /// Adds the entries read from the history file after a launch that could not read it (before the first unlock):
    /// the entries recorded since launch stay first, the stored ones follow, newest first, at most ``limit``; a call
    /// id both hold is kept once, as recorded since launch.
    /// - Parameter stored: the file's entries, newest first.
    mutating func merge(stored: [HistoryEntry]) {
        var seen = Set<String>()
        entries = Array((entries + stored).filter { seen.insert($0.callID).inserted }.prefix(Self.limit))
    }

    /// Takes one event into account.
    /// - Parameters:
    ///   - event: an event JavaScript is sent.
    ///   - date: now, on the phone's clock.
    /// - Returns: true when ``entries`` changed (a call ended), so they should be stored.
    mutating func record(_ event: BridgeEvent, at date: Date) -> Bool {
        let now = date.unixMilliseconds
        switch event {
        case .incoming(let callID, let peer, let hasVideo, _, _), .outgoing(let callID, let peer, let hasVideo):
            let direction = if case .incoming = event { "incoming" } else { "outgoing" }
            open[callID] = HistoryEntry(
                callID: callID, direction: direction, peer: peer, hasVideo: hasVideo, startedAt: now, answered: false,
                endedAt: now, reason: "", serverReason: nil)
            return false
        case .accepted(let callID, _, _):
            open[callID]?.answered = true
            return false
        case .ended(let callID, let reason, let serverReason):
            guard var entry = open.removeValue(forKey: callID) else { return false }
            entry.endedAt = now
            entry.reason = reason
            entry.serverReason = serverReason
            entries.insert(entry, at: 0)
            entries = Array(entries.prefix(Self.limit))
            return true
        default:
            return false
        }
    }
}
