import CNGHTTP2
import RingerSupport

// nghttp2's C callbacks. Each is a plain global function (a closure could pick up actor isolation) that gets
// its H2Session back from the session's user-data pointer, which H2Session set to itself without retaining;
// nghttp2 only calls these during mem_recv / mem_send on the owning connection thread, while it is alive.

private func session(_ userData: UnsafeMutableRawPointer?) -> H2Session? {
    guard let userData else { return nil }
    return Unmanaged<H2Session>.fromOpaque(userData).takeUnretainedValue()
}

/// `on_begin_headers_callback`: a HEADERS block starts.
func h2OnBeginHeaders(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { session(userData)?.beginHeaders(frame.pointee) }
    return 0
}

/// `on_header_callback`: one decoded header field (nghttp2 already validated it).
func h2OnHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name else { return 0 }
    session(userData)?.header(
        frame.pointee, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: value == nil ? 0 : valueLength))
    return 0
}

/// `on_data_chunk_recv_callback`: part of a request body.
func h2OnDataChunk(
    _: OpaquePointer?, _: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let data else { return 0 }
    session(userData)?.dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

/// `on_frame_recv_callback`: a complete frame (HEADERS with its CONTINUATIONs, DATA, GOAWAY, ...).
func h2OnFrameReceived(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { session(userData)?.frameReceived(frame.pointee) }
    return 0
}

/// `on_stream_close_callback`: the stream is closed (ended both ways, reset, or refused).
func h2OnStreamClosed(_: OpaquePointer?, _ streamID: Int32, _: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    session(userData)?.streamClosed(streamID: streamID)
    return 0
}

/// `nghttp2_data_source_read_callback`: copies the next piece of a response body.
func h2ReadResponseBody(
    _: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags, let h2 = session(userData) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return h2.readBody(streamID: streamID, into: buffer, capacity: length, flags: flags)
}

/// `on_frame_send_callback`: a frame went out; counts streams refused by nghttp2 or by ``H2Session``.
func h2OnFrameSent(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_RST_STREAM.rawValue),
        frame.pointee.rst_stream.error_code == NGHTTP2_REFUSED_STREAM.rawValue
    {
        session(userData)?.context.counters.withLock { $0.streamsRefused += 1 }
    }
    return 0
}
