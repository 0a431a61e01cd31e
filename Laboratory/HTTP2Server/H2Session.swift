import CNGHTTP2
import RingerHTTP
import RingerSupport
import SocketSupport

/// One connection's nghttp2 server session: turns frames into ``StreamRecord``s, dispatches complete
/// requests to the handler on Swift concurrency, and submits the responses that come back.
///
/// nghttp2 does the framing, HPACK, flow control and HTTP/2 message checks (RFC 9113 §8.1.1, §8.3);
/// this type only keeps per-stream request state. Thread-safety: used only by its connection thread (the one
/// that opened it; checked at run time), which is also the thread every nghttp2 callback runs on.
final class H2Session {
    // Internal rather than private only so the extension in H2Session+Streams.swift can reach them.
    var nghttpSession: OpaquePointer?
    let context: ServerContext
    let mailbox: ConnectionMailbox
    var streams: [Int32: StreamRecord] = [:]
    var acceptedRequests = 0
    var lastAcceptedStreamID: Int32 = 0
    var goAwayLastStreamID: Int32?
    /// The connection's verified client certificate, handed to every request.
    let clientCertificate: HTTPRequest.ClientCertificate?
    private let loop = LoopThread()

    /// Creates the nghttp2 server session and queues the server's SETTINGS.
    /// - Parameter clientCertificate: The connection's verified client certificate, if any.
    /// - Returns: nil when nghttp2 cannot allocate the session.
    static func open(
        context: ServerContext, mailbox: ConnectionMailbox,
        clientCertificate: HTTPRequest.ClientCertificate? = nil
    ) -> H2Session? {
        let h2 = H2Session(context: context, mailbox: mailbox, clientCertificate: clientCertificate)
        guard h2.createSession() else { return nil }
        return h2
    }

    private init(context: ServerContext, mailbox: ConnectionMailbox, clientCertificate: HTTPRequest.ClientCertificate?)
    {
        self.context = context
        self.mailbox = mailbox
        self.clientCertificate = clientCertificate
    }

    deinit {
        cancelHandlers()
        if let nghttpSession { nghttp2_session_del(nghttpSession) }
    }

    /// Streams not yet closed, including those waiting for their handler.
    var openStreamCount: Int { streams.count }

    /// True when nghttp2 neither expects input nor has output: GOAWAY exchanged and all streams closed, or a
    /// fatal protocol error was answered. The connection can then be closed.
    var isFinished: Bool {
        guard let nghttpSession else { return true }
        return nghttp2_session_want_read(nghttpSession) == 0 && nghttp2_session_want_write(nghttpSession) == 0
    }

    /// Feeds decrypted bytes to nghttp2, which calls back into this object for each frame.
    /// - Returns: false on a fatal error (bad client preface, out of memory); the connection must close.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        loop.check("H2Session")
        guard let nghttpSession, let base = bytes.baseAddress else { return nghttpSession != nil }
        return nghttp2_session_mem_recv(nghttpSession, base.assumingMemoryBound(to: UInt8.self), bytes.count) >= 0
    }

    /// Appends serialized frames to `output` until it holds at least `limit` bytes or nothing is left.
    /// - Returns: false on a fatal nghttp2 error.
    func produce(into output: inout [UInt8], limit: Int) -> Bool {
        loop.check("H2Session")
        guard let nghttpSession else { return false }
        while output.count < limit {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(nghttpSession, &chunk)
            if length < 0 { return false }
            guard length > 0, let chunk else { return true }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
        return true
    }

    /// Queues SETTINGS_MAX_CONCURRENT_STREAMS (and the header list limit) for the client.
    func submitSettings(maxConcurrentStreams: Int) {
        loop.check("H2Session")
        guard let nghttpSession else { return }
        let entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(clamping: maxConcurrentStreams)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: context.configuration.maxRequestHeaderBytes)),
        ]
        _ = nghttp2_submit_settings(nghttpSession, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
    }

    /// Submits a handler's response; dropped when the stream is gone (client reset it) or already answered.
    func deliver(_ response: HTTPResponse, streamID: Int32) {
        loop.check("H2Session")
        guard let stream = streams[streamID], !stream.responded, !stream.answeredEarly else { return }
        submit(response, on: stream)
    }

    /// Queues GOAWAY (NO_ERROR) with the last stream nghttp2 processed and closes the session once it is
    /// sent, whatever is still open (server shutdown, idle timeout).
    func terminate() {
        loop.check("H2Session")
        guard let nghttpSession else { return }
        _ = nghttp2_session_terminate_session(nghttpSession, NGHTTP2_NO_ERROR.rawValue)
    }

    /// Cancels every handler task still running; their results would be dropped anyway.
    func cancelHandlers() {
        for stream in streams.values { stream.task?.cancel() }
    }

    /// The connection-level receive window, bytes.
    static let connectionWindowBytes: Int32 = 1 << 20

    private func createSession() -> Bool {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return false }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2OnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2OnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2OnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2OnFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2OnStreamClosed)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, h2OnFrameSent)
        var created: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new(&created, callbacks, user) == 0, let created else { return false }
        nghttpSession = created
        submitSettings(maxConcurrentStreams: context.controls.withLock { $0.maxConcurrentStreams })
        // A connection window of 1 MiB, as busy servers advertise (RFC 9113 section 6.9.2 starts it at
        // 65,535 bytes and only WINDOW_UPDATE raises it): hundreds of small pushes in flight must not
        // stall on the window while WINDOW_UPDATEs wait for the next write.
        _ = nghttp2_session_set_local_window_size(
            created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindowBytes)
        return true
    }
}

// MARK: - Callback targets (called by the global functions in H2Callbacks.swift)

extension H2Session {
    func beginHeaders(_ frame: nghttp2_frame) {
        guard frame.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.headers.cat == NGHTTP2_HCAT_REQUEST else {
            return
        }
        streams[frame.hd.stream_id] = StreamRecord(id: frame.hd.stream_id)
    }

    func header(_ frame: nghttp2_frame, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // Trailer fields (category HEADERS) are not part of HTTPRequest; only the request block is kept.
        guard frame.headers.cat == NGHTTP2_HCAT_REQUEST, let stream = streams[frame.hd.stream_id],
            !stream.headerListTooLarge
        else { return }
        stream.headerBytes += name.count + value.count + 32
        guard stream.headerBytes <= context.configuration.maxRequestHeaderBytes else {
            stream.headerListTooLarge = true
            stream.headers = [:]
            return
        }
        // nghttp2 already rejected upper-case names (RFC 9113 §8.2.1), so the name is the lookup key as is.
        stream.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.answeredEarly else { return }
        guard stream.body.count + bytes.count <= context.configuration.maxRequestBodyBytes else {
            stream.body = []
            answerEarly(
                stream, status: 413, reason: "request body exceeds \(context.configuration.maxRequestBodyBytes) bytes")
            return
        }
        stream.body.append(contentsOf: bytes)
    }

    func frameReceived(_ frame: nghttp2_frame) {
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch frame.hd.type {
        case UInt8(NGHTTP2_HEADERS.rawValue):
            guard let stream = streams[frame.hd.stream_id] else { return }
            if frame.headers.cat == NGHTTP2_HCAT_REQUEST {
                stream.headersComplete = true
                guard admit(stream) else { return }
                checkLimits(stream, endStream: endStream)
            }
            if endStream { dispatch(stream) }
        case UInt8(NGHTTP2_DATA.rawValue):
            if endStream, let stream = streams[frame.hd.stream_id] { dispatch(stream) }
        default:
            break
        }
    }

    func streamClosed(streamID: Int32) {
        // A reset or finished stream: a handler still running can stop, its late result is dropped.
        streams.removeValue(forKey: streamID)?.task?.cancel()
    }

    /// Copies the next part of a response body for nghttp2's data provider.
    /// - Returns: Bytes copied, or a negative nghttp2 error to reset the stream.
    func readBody(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(capacity, stream.responseBody.count - stream.responseOffset)
        stream.responseBody.withUnsafeBufferPointer { body in
            if count > 0, let base = body.baseAddress {
                buffer.update(from: base + stream.responseOffset, count: count)
            }
        }
        stream.responseOffset += count
        if stream.responseOffset >= stream.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}
