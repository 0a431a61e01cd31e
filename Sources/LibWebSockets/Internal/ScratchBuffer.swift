import CLWS

/// A reusable write buffer with the `LWS_PRE` headroom that `lws_write` needs in front of the
/// data (lws writes its frame or HTTP/2 headers there). Service thread only.
final class ScratchBuffer {
    /// Payload bytes available after the headroom.
    let capacity: Int
    private let base: UnsafeMutableRawPointer

    /// - Parameter capacity: Payload bytes (the headroom comes on top).
    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: Int(CLWS_PRE) + capacity, alignment: 16)
    }

    deinit {
        base.deallocate()
    }

    /// Where the payload starts.
    var payload: UnsafeMutablePointer<UInt8> {
        (base + Int(CLWS_PRE)).assumingMemoryBound(to: UInt8.self)
    }

    /// One past the last payload byte.
    var end: UnsafeMutablePointer<UInt8> {
        payload + capacity
    }

    /// Copies `bytes` (at most `capacity`) behind the headroom and hands them to `lws_write`.
    /// - Returns: What `lws_write` returns: bytes accepted, or a negative value on failure.
    func write(_ wsi: OpaquePointer, _ bytes: ArraySlice<UInt8>, mode: UInt32) -> Int32 {
        precondition(bytes.count <= capacity, "write larger than the scratch buffer")
        bytes.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { payload.update(from: address, count: source.count) }
        }
        return lws_write(wsi, payload, bytes.count, lws_write_protocol(rawValue: mode))
    }
}
