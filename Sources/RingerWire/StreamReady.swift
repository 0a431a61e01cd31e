public import Foundation

/// The frame the server sends on every event-stream connection once the replay (if any) is written:
/// `{"type":"stream.ready","seq":41,"server_time_ms":1767225600000}`.
///
/// `seq` is the user's newest event sequence number when the stream went live. A client that has not
/// seen any event yet stores it and reconnects with `?since=<seq>`, so events published while its
/// socket is down are replayed even if it never received one before. It is not a call event: it has
/// no `call`, is never stored and never replayed. Clients that do not know it can ignore it.
public struct StreamReady: Codable, Hashable, Sendable {
    /// Always ``EventType/streamReady``.
    public var type: EventType
    /// The user's newest event `seq` when the stream went live; 0 when the user has no event yet.
    public var seq: Int64
    /// The server's clock when it sent the frame, Unix milliseconds; nil from servers that predate it. Phones
    /// learn the server-minus-phone clock offset from it, to judge ring deadlines on the server's timeline.
    public var serverTimeMs: Int64?

    /// Creates the frame.
    /// - Parameters:
    ///   - seq: the user's newest event `seq`.
    ///   - serverTime: the server's clock now; nil leaves `server_time_ms` out.
    public init(seq: Int64, serverTime: Date? = nil) {
        type = .streamReady
        self.seq = seq
        serverTimeMs = serverTime?.unixMilliseconds
    }
}
