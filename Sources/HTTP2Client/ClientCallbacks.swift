import CNGHTTP2

// nghttp2's C callbacks for client sessions. Each is a plain global function (a closure could pick up actor
// isolation) that gets its ClientConnection back from the session's user-data pointer, set unretained; nghttp2
// only calls them during mem_recv / mem_send on the loop thread, while the connection is alive.

/// Installs the client callbacks on a callbacks object.
enum ClientCallbacks {
    static func install(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, clientOnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, clientOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientOnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientOnFrameReceived)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, clientOnFrameSent)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, clientOnFrameNotSent)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientOnStreamClosed)
    }
}

/// HTTP/2 error codes (RFC 9113 §7) the client tells apart.
enum HTTP2ErrorCode {
    /// REFUSED_STREAM: the server did not process the stream; safe to resend (RFC 9113 §8.7).
    static let refusedStream = NGHTTP2_REFUSED_STREAM.rawValue

    /// The RFC's name of an error code, e.g. `INTERNAL_ERROR`.
    static func name(_ code: UInt32) -> String {
        String(cString: nghttp2_http2_strerror(code))
    }
}

private func connection(_ userData: UnsafeMutableRawPointer?) -> ClientConnection? {
    guard let userData else { return nil }
    return Unmanaged<ClientConnection>.fromOpaque(userData).takeUnretainedValue()
}

/// `on_begin_headers_callback`: a response (or trailer) header block starts.
func clientOnBeginHeaders(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { connection(userData)?.beginHeaders(streamID: frame.pointee.hd.stream_id) }
    return 0
}

/// `on_header_callback`: one decoded response field.
func clientOnHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name else { return 0 }
    connection(userData)?.header(
        streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: value == nil ? 0 : valueLength))
    return 0
}

/// `on_data_chunk_recv_callback`: part of a response body.
func clientOnDataChunk(
    _: OpaquePointer?, _: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let data else { return 0 }
    connection(userData)?.dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

/// `on_frame_recv_callback`: a complete frame (SETTINGS, GOAWAY, PING, end of a stream, ...).
func clientOnFrameReceived(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { connection(userData)?.frameReceived(frame) }
    return 0
}

/// `on_frame_send_callback`: a frame went out (a stream's HEADERS: the request reached the wire).
func clientOnFrameSent(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { connection(userData)?.frameSent(frame) }
    return 0
}

/// `on_frame_not_send_callback`: nghttp2 could not send a frame (a request's HEADERS too large to encode, ...).
func clientOnFrameNotSent(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ code: Int32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame { connection(userData)?.frameNotSent(frame, code: code) }
    return 0
}

/// `on_stream_close_callback`: the stream is closed (answered, reset, refused, or cut by GOAWAY).
func clientOnStreamClosed(
    _: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    connection(userData)?.streamClosed(streamID: streamID, errorCode: errorCode)
    return 0
}

/// `nghttp2_data_source_read_callback`: copies the next piece of a request body.
func clientReadRequestBody(
    _: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags, let connection = connection(userData) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return connection.readRequestBody(streamID: streamID, into: buffer, capacity: length, flags: flags)
}
