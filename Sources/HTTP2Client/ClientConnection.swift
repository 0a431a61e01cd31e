import CNGHTTP2
import Foundation
import SocketSupport
import TLSSocket

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection of the client: a ``TLSSocket`` (TCP with address fallback, OpenSSL on top, none for
/// h2c) and an nghttp2 client session on the decrypted bytes. nghttp2 does the framing, HPACK, flow control,
/// SETTINGS, GOAWAY and stream-state rules (RFC 9113); this type keeps the session and each stream's request
/// and response.
///
/// Streams that end are appended to ``finished`` for the loop to deliver; a connection that fails moves every
/// stream still on it there too and sets ``failure``. Its ``streams`` are the loop's only table of requests in
/// flight. Thread-safety: loop thread only (checked at run time), which is also the thread every nghttp2
/// callback runs on.
final class ClientConnection {
    enum Phase {
        case connecting, handshaking, open, closed
    }

    /// The connection's timers, one of which is next due (``nextTimer(keepAlive:idleLimit:)``).
    enum Timer: Equatable {
        /// Set-up (TCP, TLS, the server's SETTINGS) took longer than ``setUpLimit``: fail.
        case setUpLimit
        /// GOAWAY received and every stream ended: close now.
        case drained
        /// No stream open for the idle lifetime: close.
        case idleLimit
        /// Silent for the keep-alive interval: send a PING.
        case keepAlivePing
        /// The outstanding PING went unanswered for ``ClientLoop/pingTimeout(_:)``.
        case pingAnswer
    }

    /// The connection-level receive window advertised to the server, bytes.
    static let connectionWindowBytes: Int32 = 1 << 20

    let target: RequestTarget
    let openedAt = ContinuousClock.now
    private(set) var phase = Phase.connecting
    /// The local TCP port, once connected (two responses with the same port shared a connection).
    private(set) var localPort = 0
    /// Open streams by id: the requests in flight here.
    private(set) var streams: [Int32: ClientStream] = [:]
    /// Streams that ended since the loop last looked, with how they ended.
    var finished: [(stream: ClientStream, end: StreamEnd)] = []
    /// Why the connection failed, once it has.
    private(set) var failure: HTTP2ClientError?
    /// The server's first SETTINGS arrived: its stream limit is known.
    private(set) var settingsReceived = false
    /// The server sent GOAWAY: no new streams here.
    private(set) var goAwayReceived = false
    /// Last time a response completed here; nil before the first.
    private(set) var lastAnswerAt: ContinuousClock.Instant?
    /// Last time anything was read.
    private(set) var lastReadAt = ContinuousClock.now
    /// Since when no stream has been open.
    private(set) var idleSince = ContinuousClock.now
    /// When the outstanding keep-alive PING went out; nil when none is outstanding.
    private(set) var pingSentAt: ContinuousClock.Instant?
    /// The opaque data of the last PING sent.
    private var pingNumber: UInt64 = 0
    /// The error code of the GOAWAY nghttp2 sent, if it sent one.
    private var sentGoAwayCode: UInt32?
    /// Whether any stream was started here (the next one is the connection's first while false).
    private(set) var carriedStreams = false
    /// Set by ``close(reason:)``: the client ended the connection, the server did not fail.
    private(set) var closedByClient = false

    /// Longest the connection may take from `connect` to the server's first SETTINGS.
    let setUpLimit: Duration
    private let tls: ClientTLSContext?
    private let maxBodyBytes: Int
    private let loop = LoopThread()
    /// The connect in progress (phase `connecting`).
    private var connector: TCPConnector?
    /// The connected socket (phases `handshaking` and `open`).
    private var socket: TLSSocket?
    private var session: OpaquePointer?

    /// Starts connecting to `target` (non-blocking; the loop drives the rest through ``handle(events:)``).
    /// Call on the loop thread, which then owns the connection.
    /// - Parameters:
    ///   - target: where to.
    ///   - tls: the client TLS context; nil for h2c (`http://`).
    ///   - configuration: keep-alive and limits.
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` when the name does not resolve or no
    ///   socket can be started.
    init(
        target: RequestTarget, tls: ClientTLSContext?, configuration: HTTP2Client.Configuration
    ) throws(HTTP2ClientError) {
        self.target = target
        self.tls = tls
        maxBodyBytes = configuration.maxResponseBodyBytes
        setUpLimit = .seconds(configuration.connectTimeout)
        do {
            connector = try TCPConnector(
                host: target.host, port: target.port, peer: target.authority,
                keepAlive: configuration.keepAliveInterval)
        } catch {
            throw .socket(error)
        }
    }

    deinit {
        release()
    }

    // MARK: State the loop reads

    /// The socket to poll; -1 once closed.
    var descriptor: Int32 { socket?.descriptor ?? connector?.descriptor ?? -1 }

    /// Streams this connection may still open now: none until it is open or after GOAWAY, one until the
    /// server's SETTINGS arrived (a server may allow fewer than nghttp2's assumption of 100; APNs may start at
    /// 1), then the server's SETTINGS_MAX_CONCURRENT_STREAMS capped by `limit`, minus the open streams.
    func freeStreams(limit: Int) -> Int {
        guard phase == .open, !goAwayReceived, let session else { return 0 }
        guard settingsReceived else { return streams.isEmpty ? 1 : 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(remote, limit) - streams.count)
    }

    /// Streams this connection can carry at once, whatever is open now: none once closed or after GOAWAY, one
    /// until the server's SETTINGS arrived, then SETTINGS_MAX_CONCURRENT_STREAMS capped by `limit`.
    func streamLimit(_ limit: Int) -> Int {
        guard phase != .closed, !goAwayReceived else { return 0 }
        guard settingsReceived, let session else { return 1 }
        return min(Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)), limit)
    }

    /// Still being set up (TCP or TLS), or open without the server's SETTINGS yet.
    var isWarmingUp: Bool {
        phase == .connecting || phase == .handshaking || (phase == .open && !settingsReceived)
    }

    /// The events to poll for.
    var pollEvents: Int16 {
        switch phase {
        case .connecting: return Int16(POLLOUT)
        case .closed: return 0
        case .handshaking, .open: return Int16(POLLIN) | (socket?.wantsWritable == true ? Int16(POLLOUT) : 0)
        }
    }

    /// True when nothing is left to do here: GOAWAY received and every stream ended.
    var isDrained: Bool { goAwayReceived && streams.isEmpty }

    /// The stream carrying `pending`, if it is in flight here.
    func streamID(of pending: PendingResponse) -> Int32? {
        streams.first { $0.value.pending === pending }?.key
    }

    /// The timer of this connection that is due next, and when: the one answer both the loop's `poll` timeout
    /// and its housekeeping use, so the loop never wakes for a timer it then does not act on (or the reverse).
    /// A due time in the past means at once. Nil once closed.
    /// - Parameters:
    ///   - keepAlive: the keep-alive interval; nil for no PINGs.
    ///   - idleLimit: how long a connection may stay without streams.
    func nextTimer(keepAlive: Duration?, idleLimit: Duration) -> (due: ContinuousClock.Instant, timer: Timer)? {
        switch phase {
        case .closed: return nil
        case .connecting, .handshaking: return (openedAt + setUpLimit, .setUpLimit)
        case .open: break
        }
        var next: (due: ContinuousClock.Instant, timer: Timer)?
        func consider(_ due: ContinuousClock.Instant, _ timer: Timer) {
            if next.map({ due < $0.due }) ?? true { next = (due, timer) }
        }
        if isDrained {
            consider(openedAt, .drained)
        } else if streams.isEmpty {
            consider(idleSince + idleLimit, .idleLimit)
        }
        if !settingsReceived { consider(openedAt + setUpLimit, .setUpLimit) }
        if let keepAlive {
            if let sentAt = pingSentAt {
                consider(sentAt + ClientLoop.pingTimeout(keepAlive), .pingAnswer)
            } else {
                consider(lastReadAt + keepAlive, .keepAlivePing)
            }
        }
        return next
    }

    // MARK: Driving

    /// Reacts to `poll`'s result for this socket: finishes connecting, advances the handshake, reads.
    func handle(events: Int16) {
        loop.check("ClientConnection")
        switch phase {
        case .connecting:
            finishConnect()
        case .handshaking:
            advanceHandshake()
        case .open:
            readInput()
        case .closed:
            return
        }
        flush()
    }

    /// Fails the connection for taking longer than ``setUpLimit`` (its ``Timer/setUpLimit`` is due).
    func failSetUp() {
        let stage =
            switch phase {
            case .connecting: "connect"
            case .handshaking: "SSL_do_handshake"
            default: "SETTINGS"
            }
        fail(
            .transport(
                function: stage, code: Int(ETIMEDOUT),
                message: "no HTTP/2 connection to \(target.authority) within \(setUpLimit) (stuck at \(stage))"))
    }

    /// Hands a request to nghttp2 as a new stream; it goes out with the next ``flush()``.
    /// - Returns: the stream id, or nil when nghttp2 refused it (no stream ids left, or the session is closing).
    func start(_ job: Job, userAgent: String) -> Int32? {
        loop.check("ClientConnection")
        guard let session, phase == .open else { return nil }
        let request = job.pending.request
        let stream = ClientStream(job: job, openedConnection: !carriedStreams)
        let streamID = HeaderBlock.withFields(request: request, target: job.pending.target, userAgent: userAgent) {
            fields in
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: clientReadRequestBody)
            let hasBody = !request.body.isEmpty
            return withUnsafeMutablePointer(to: &provider) { providerPointer in
                nghttp2_submit_request(
                    session, nil, fields.baseAddress, fields.count, hasBody ? providerPointer : nil, nil)
            }
        }
        guard streamID > 0 else {
            // Out of stream ids (or closing): this connection takes no more; the loop opens another.
            goAwayReceived = true
            return nil
        }
        carriedStreams = true
        streams[streamID] = stream
        return streamID
    }

    /// Resets a stream the loop gave up on (deadline, cancellation, shutdown) with CANCEL; its end is not reported.
    /// - Returns: the stream, or nil when it is not open here.
    @discardableResult
    func abandon(streamID: Int32) -> ClientStream? {
        loop.check("ClientConnection")
        guard let stream = streams.removeValue(forKey: streamID) else { return nil }
        if let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        }
        if streams.isEmpty { idleSince = .now }
        return stream
    }

    /// Queues a keep-alive PING (RFC 9113 §6.7); its ACK clears ``pingSentAt``.
    /// - Returns: whether one was queued.
    @discardableResult
    func ping() -> Bool {
        loop.check("ClientConnection")
        guard let session, phase == .open, pingSentAt == nil else { return false }
        // Each PING carries its own number, so a late ACK of a forgotten one cannot clear a newer one.
        pingNumber &+= 1
        var payload = pingNumber.bigEndian
        let submitted = withUnsafeBytes(of: &payload) {
            nghttp2_submit_ping(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard submitted == 0 else { return false }
        pingSentAt = .now
        return true
    }

    /// Stops waiting for the outstanding PING's ACK (the server proved alive otherwise).
    func forgetPing() {
        pingSentAt = nil
    }

    /// Writes what nghttp2 queued until the socket is full or nothing is left.
    func flush() {
        loop.check("ClientConnection")
        guard phase == .open, let session, let socket else { return }
        let end = socket.flush { buffer in
            while buffer.count < TLSSocket.writeChunkBytes {
                var chunk: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 {
                    fail(
                        .transport(
                            function: "nghttp2_session_mem_send", code: length, message: Self.nghttp2Message(length)))
                    return false
                }
                guard length > 0, let chunk else { break }
                buffer.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            }
            return true
        }
        switch end {
        case .done: failIfSessionEnded(session)
        case .blocked, .producerFailed: return
        case .failed(let error): fail(.socket(error))
        }
    }

    /// nghttp2 ended the session itself (it sent GOAWAY after the server broke the protocol) while streams are
    /// still open: it reads nothing more, so they would wait for their deadlines. Fail the connection instead,
    /// so they are resent at once on another one.
    private func failIfSessionEnded(_ session: OpaquePointer) {
        guard nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0, !isDrained else {
            return
        }
        let code = sentGoAwayCode ?? NGHTTP2_INTERNAL_ERROR.rawValue
        fail(
            .transport(
                function: "GOAWAY", code: Int(code),
                message:
                    "HTTP/2 session ended after a protocol error by \(target.authority) (\(HTTP2ErrorCode.name(code)))")
        )
    }

    /// Ends the connection politely (GOAWAY NO_ERROR, then close); streams still open fail as on a lost connection.
    func close(reason: String) {
        loop.check("ClientConnection")
        guard phase != .closed else { return }
        closedByClient = true
        if let session, phase == .open {
            _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            flush()
        }
        fail(.transport(function: "close", code: 0, message: reason))
    }

    /// Fails the connection: every stream still open ends (``StreamEnd/refused`` if it never left, else
    /// failed), and the socket, TLS state and session are released.
    func fail(_ error: HTTP2ClientError) {
        loop.check("ClientConnection")
        guard phase != .closed else { return }
        phase = .closed
        failure = error
        for stream in streams.values.sorted(by: { $0.startedAt < $1.startedAt }) {
            finished.append((stream, stream.headersSent ? .failed(error, connectionFailure: true) : .refused))
        }
        streams.removeAll()
        release()
    }

    // MARK: Set-up

    private func finishConnect() {
        guard var connector else { return }
        let outcome = connector.finish()
        self.connector = connector
        let descriptor: Int32
        switch outcome {
        case .retrying: return
        case .failed(let error):
            fail(.socket(error))
            return
        case .connected(let connected):
            self.connector = nil
            descriptor = connected
        }
        localPort = SocketAddress.localPort(of: descriptor)
        var ssl: OpaquePointer?
        if target.isSecure {
            guard let tls, let made = tls.makeConnection(to: target) else {
                Posix.closeDescriptor(descriptor)
                fail(.transport(function: "SSL_new", code: 0, message: "out of memory"))
                return
            }
            ssl = made
        }
        do {
            socket = try TLSSocket(descriptor: descriptor, ssl: ssl, peer: target.authority)
        } catch {
            fail(.socket(error))
            return
        }
        guard target.isSecure else {
            openSession()
            return
        }
        phase = .handshaking
        advanceHandshake()
    }

    private func advanceHandshake() {
        guard let socket else { return }
        switch socket.advanceHandshake() {
        case .pending:
            return
        case .failed(let error):
            fail(.socket(error))
        case .done:
            guard socket.negotiatedProtocol == "h2" else {
                fail(
                    .transport(
                        function: "SSL_get0_alpn_selected", code: 0,
                        message: "\(target.authority) did not agree on HTTP/2 (ALPN h2)"))
                return
            }
            openSession()
            // With read-ahead, the handshake's last read may have taken what the server sent right after it (its
            // SETTINGS, in a TLS 1.2 handshake's final flight): those bytes wait in OpenSSL, where `poll` cannot see
            // them, so they are read now rather than with the next segment.
            readInput()
        }
    }

    /// Creates the nghttp2 client session and queues the preface and SETTINGS (no server push, RFC 9113 §8.4).
    private func openSession() {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            fail(.transport(function: "nghttp2_session_callbacks_new", code: 0, message: "out of memory"))
            return
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        ClientCallbacks.install(on: callbacks)
        var created: OpaquePointer?
        guard nghttp2_session_client_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            let created
        else {
            fail(.transport(function: "nghttp2_session_client_new", code: 0, message: "out of memory"))
            return
        }
        session = created
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(ClientStream.maxHeaderListBytes)),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        _ = nghttp2_session_set_local_window_size(
            created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindowBytes)
        phase = .open
        lastReadAt = .now
        idleSince = .now
    }

    // MARK: I/O

    /// Feeds what the socket has to nghttp2 (``TLSSocket/readAvailable(_:)``: up to a short read, so bytes that
    /// arrive meanwhile wait for the next `poll`).
    private func readInput() {
        guard let session, let socket else { return }
        let end = socket.readAvailable { bytes in
            lastReadAt = .now
            let used = nghttp2_session_mem_recv(session, bytes.baseAddress, bytes.count)
            if used < 0 {
                fail(.transport(function: "nghttp2_session_mem_recv", code: used, message: Self.nghttp2Message(used)))
            }
            return phase == .open
        }
        if case .closed(let error) = end { fail(.socket(error)) }
    }

    private func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
        socket?.close()
        socket = nil
        connector?.abandon()
        connector = nil
    }

    static func nghttp2Message(_ code: Int) -> String {
        String(cString: nghttp2_strerror(Int32(clamping: code)))
    }
}

extension HTTP2ClientError {
    /// The client's error for a socket-layer failure: a certificate refusal stays one.
    static func socket(_ error: TLSSocketError) -> HTTP2ClientError {
        if let alert = error.refusedCertificateAlert {
            return .certificateRefused(alert: alert, message: error.message)
        }
        return .transport(function: error.function, code: error.code, message: error.message)
    }
}

// MARK: - nghttp2 callback targets (called by the functions in ClientCallbacks.swift)

extension ClientConnection {
    func beginHeaders(streamID: Int32) {
        streams[streamID]?.beginHeaderBlock()
    }

    func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.addHeader(name: name, value: value), let session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.appendBody(bytes, limit: maxBodyBytes), let session else {
            return
        }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        let isAck = header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
        switch Int(header.type) {
        case Int(NGHTTP2_SETTINGS.rawValue):
            if !isAck { settingsReceived = true }
        case Int(NGHTTP2_GOAWAY.rawValue):
            goAwayReceived = true
        case Int(NGHTTP2_PING.rawValue):
            if isAck,
                withUnsafeBytes(of: frame.pointee.ping.opaque_data, { $0.loadUnaligned(as: UInt64.self) })
                    == pingNumber.bigEndian
            {
                pingSentAt = nil
            }
        case Int(NGHTTP2_HEADERS.rawValue), Int(NGHTTP2_DATA.rawValue):
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 { streams[header.stream_id]?.ended = true }
        default:
            break
        }
    }

    func frameSent(_ frame: UnsafePointer<nghttp2_frame>) {
        switch frame.pointee.hd.type {
        case UInt8(NGHTTP2_HEADERS.rawValue):
            streams[frame.pointee.hd.stream_id]?.headersSent = true
        case UInt8(NGHTTP2_GOAWAY.rawValue):
            sentGoAwayCode = frame.pointee.goaway.error_code
        default:
            break
        }
    }

    /// nghttp2 reports a stream whose request HEADERS it could not send as REFUSED_STREAM ("send it again");
    /// a header block too large to encode fails the same way every time, so the stream must not be resent.
    func frameNotSent(_ frame: UnsafePointer<nghttp2_frame>, code: Int32) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
            code == NGHTTP2_ERR_FRAME_SIZE_ERROR.rawValue || code == NGHTTP2_ERR_HEADER_COMP.rawValue
        else { return }
        streams[frame.pointee.hd.stream_id]?.unsendable = .transport(
            function: "nghttp2_session_mem_send", code: Int(code),
            message:
                "the request's header block cannot be sent: \(Self.nghttp2Message(Int(code))) (nghttp2 sends at most 64 KiB)"
        )
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let end = stream.end(errorCode: errorCode, localPort: localPort, maxBodyBytes: maxBodyBytes)
        if case .response = end { lastAnswerAt = .now }
        finished.append((stream, end))
        if streams.isEmpty { idleSince = .now }
    }

    /// Copies the next part of a request body for nghttp2's data provider.
    func readRequestBody(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let body = stream.pending.request.body
        let count = min(capacity, body.count - stream.requestBodyOffset)
        body.withUnsafeBufferPointer { source in
            if count > 0, let base = source.baseAddress {
                buffer.update(from: base + stream.requestBodyOffset, count: count)
            }
        }
        stream.requestBodyOffset += count
        if stream.requestBodyOffset >= body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
