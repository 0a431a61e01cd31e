import CLWS

/// Joins the pieces lws delivers for one WebSocket message: partial reads of a frame
/// (`lws_remaining_packet_payload`) and continuation frames (`lws_is_final_fragment`).
/// Service thread only.
struct MessageAssembler {
    /// The result of adding one piece.
    enum Event {
        /// The message is not complete yet.
        case incomplete
        /// A complete text message.
        case text(String)
        /// A complete binary message (the wrapper ignores these).
        case binary
        /// The message would exceed the limit: close with 1009 (RFC 6455 §7.4.1).
        case tooBig
    }

    private let limit: Int
    private var buffer: [UInt8] = []
    private var atMessageStart = true
    private var isBinary = false

    /// - Parameter limit: Largest accepted message, in bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Adds one piece received on `wsi` inside its receive callback.
    mutating func receive(on wsi: OpaquePointer, bytes: UnsafeRawPointer?, count: Int) -> Event {
        if atMessageStart {
            isBinary = lws_frame_is_binary(wsi) != 0
            atMessageStart = false
        }
        // What the frame header announced counts at once: a frame declaring 2^62 bytes is refused on its first
        // bytes, not after 4 KiB of them.
        guard buffer.count + count + Int(clamping: lws_remaining_packet_payload(wsi)) <= limit else {
            buffer = []
            return .tooBig
        }
        if let bytes, count > 0 {
            buffer.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else {
            return .incomplete
        }
        defer {
            buffer = []
            atMessageStart = true
        }
        return isBinary ? .binary : .text(String(decoding: buffer, as: UTF8.self))
    }
}
