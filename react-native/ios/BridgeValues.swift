internal import RingerWire

/// A call as JavaScript sees it (docs/react-native.md, "Methods"; `Call` and `PlacedCall` in
/// react-native/src/types.ts): `state` is `ringing`, `answering` or `active` for a call up on this phone (the
/// coordinator's phase); for the answer of `startCall` it is the server's state, which may be `busy` or `failed`
/// (then nothing rings). Keys: callId, direction, peer {id, name}, hasVideo, state, media.
struct BridgeCall: Encodable, Sendable, Hashable {
    /// The server's call id.
    var callID: String
    /// `incoming` or `outgoing`.
    var direction: String
    /// The other party.
    var peer: Party
    /// Whether the call offers video.
    var hasVideo: Bool
    /// See the type's description.
    var state: String
    /// The media of the call's `accepted` event (`{url, token}`), so a JavaScript instance that attaches during the
    /// call (a reload, expo-updates' `reloadAsync`) can join it again; nil before media could start, and in the
    /// answer of `startCall`.
    var media: MediaSession? = nil
    /// A group call's legs as people and states, in the order rung; nil for a 1:1 call.
    var participants: [BridgeParticipant]? = nil

    /// Encodes every key, the peer's `name`, `media` and `participants` as null when absent.
    /// - Throws: `EncodingError` only if the encoder refuses a value.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CallKeys.self)
        try container.encodeCall(callID, direction, peer, hasVideo)
        try container.encode(state, forKey: .state)
        try container.encode(media, forKey: .media)
        try container.encode(participants, forKey: .participants)
    }
}

/// The keys of the call objects JavaScript sees (``BridgeCall``, ``HistoryEntry``).
enum CallKeys: String, CodingKey {
    case callId, direction, peer, hasVideo, state, media, startedAt, answered, endedAt, reason, serverReason,
        participants
}

extension KeyedEncodingContainer where Key == CallKeys {
    /// The keys every call object starts with: `callId`, `direction`, `peer` (`name` null when absent), `hasVideo`.
    /// - Throws: `EncodingError` only if the encoder refuses a value.
    mutating func encodeCall(_ callID: String, _ direction: String, _ peer: Party, _ hasVideo: Bool) throws {
        try encode(callID, forKey: .callId)
        try encode(direction, forKey: .direction)
        try encode(BridgeParty(peer), forKey: .peer)
        try encode(hasVideo, forKey: .hasVideo)
    }
}

/// What `configure` resolves with (docs/react-native.md, "Methods"; `NativeState` in react-native/src/types.ts).
struct NativeState: Encodable, Sendable, Hashable {
    /// The server this process uses.
    var server: String?
    /// This install's device id.
    var deviceID: String
    /// Always `ios` here.
    var platform = "ios"
    /// The logged-in user, if any.
    var userID: String?
    /// The calls up on this phone.
    var calls: [BridgeCall]
    /// The readiness pre-flight's problems.
    var readiness: [String]

    private enum CodingKeys: String, CodingKey {
        case server
        case deviceID = "deviceId"
        case platform
        case userID = "userId"
        case calls, readiness
    }

    /// Encodes every key, `server` and `userId` as null when absent.
    /// - Throws: `EncodingError` only if the encoder refuses a value.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(platform, forKey: .platform)
        try container.encode(userID, forKey: .userID)
        try container.encode(calls, forKey: .calls)
        try container.encode(readiness, forKey: .readiness)
    }
}

/// What `login` resolves with.
struct LoginResult: Encodable, Sendable, Hashable {
    /// The token's subject.
    var userID: String

    private enum CodingKeys: String, CodingKey {
        case userID = "userId"
    }
}
