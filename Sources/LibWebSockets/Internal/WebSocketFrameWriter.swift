import CLWS

/// Writes the queued messages of one WebSocket, one fragment per writable callback, so that a
/// large message never forces lws to buffer it whole and other connections keep their turn.
/// Service thread only.
struct WebSocketFrameWriter {
    /// Payload bytes per frame.
    static let fragmentSize = 16 * 1024

    /// What the caller should do after a writable callback.
    enum Outcome {
        /// Nothing left to write.
        case idle
        /// More to write: request another writable callback.
        case more
        /// The queue is empty and a close was requested: send the requested close and return -1.
        case close
        /// `lws_write` failed: return -1.
        case failed
    }

    private var message: [UInt8] = []
    private var offset = 0
    private var inMessage = false

    /// Whether a message is partly written.
    var isInMessage: Bool { inMessage }
    /// Whether this writer wrote the close frame (then nothing more may follow it, RFC 6455 §5.5.1).
    private(set) var hasSentClose = false

    /// Writes the next fragment, taking a new message from `outbox` when none is in progress.
    mutating func writeNext(
        on wsi: OpaquePointer, from outbox: WebSocketOutbox, using scratch: ScratchBuffer
    )
        -> Outcome
    {
        if !inMessage {
            guard let next = outbox.dequeue() else {
                return outbox.isCloseRequested ? .close : .idle
            }
            message = next
            offset = 0
            inMessage = true
        }
        let count = min(Self.fragmentSize, message.count - offset)
        let isFirst = offset == 0
        let isLast = offset + count == message.count
        // RFC 6455 §5.4: the first frame carries the opcode, the rest are continuations; FIN on the last.
        var mode = isFirst ? LWS_WRITE_TEXT.rawValue : LWS_WRITE_CONTINUATION.rawValue
        if !isLast { mode |= LWS_WRITE_NO_FIN.rawValue }
        let written = scratch.write(wsi, message[offset..<(offset + count)], mode: mode)
        if written < Int32(count) { return .failed }
        offset += count
        if isLast {
            inMessage = false
            message = []
        }
        return inMessage || outbox.hasQueuedMessages || outbox.isCloseRequested ? .more : .idle
    }

    /// `LWS_WRITE_CLOSE`: lws 4.1.6 frames a close with this write type (its own close path uses it) but leaves
    /// it out of the public `lws_write_protocol`, between `LWS_WRITE_HTTP` (3) and `LWS_WRITE_PING` (5).
    static let closeWriteType: UInt32 = 4

    /// Handles a WRITEABLE callback (client or server): writes the next fragment or the close, asks
    /// for another callback while more is queued, and returns what the lws callback must return.
    /// - Parameter writesCloseFrame: write the close frame here rather than leave it to lws: lws 4.1.6 on a
    ///   libuv loop (the server's) closes the socket after the callback returns -1 without sending the frame
    ///   `lws_close_reason` prepared, so the peer saw 1006 instead of the code; on lws' own poll loop (the
    ///   client role) lws sends it.
    /// - Parameter awaitsCloseReply: with `writesCloseFrame`, keep the connection open after the close frame until
    ///   the peer's reply (or the owner's deadline) instead of closing it at once: the server's shutdown, where
    ///   closing thousands of sockets at once would hold up the frames still to be written (each close costs lws
    ///   4.1.6 on libuv a walk of its descriptor table).
    mutating func serviceWritable(
        _ wsi: OpaquePointer, from outbox: WebSocketOutbox, using scratch: ScratchBuffer,
        writesCloseFrame: Bool = false, awaitsCloseReply: Bool = false
    ) -> Int32 {
        if hasSentClose { return 0 }
        switch writeNext(on: wsi, from: outbox, using: scratch) {
        case .idle:
            return 0
        case .more:
            lws_callback_on_writable(wsi)
            return 0
        case .close where writesCloseFrame:
            // RFC 6455 §5.5.1: the status code in network byte order, then the reason.
            let status = outbox.closeStatus
            let frame = [UInt8(status.code >> 8), UInt8(status.code & 0xff)] + status.reason
            let written = scratch.write(wsi, frame[...], mode: Self.closeWriteType)
            hasSentClose = true
            return awaitsCloseReply && written >= 0 ? 0 : -1
        case .close:
            var status = outbox.closeStatus
            status.reason.withUnsafeMutableBufferPointer { reason in
                lws_close_reason(wsi, lws_close_status(rawValue: UInt32(status.code)), reason.baseAddress, reason.count)
            }
            return -1
        case .failed:
            return -1
        }
    }
}
