import CNGHTTP2
import CTLS
import Foundation
import OpenSSLSupport
import SocketSupport
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection of the client: a non-blocking TCP socket, OpenSSL on top (none for h2c), and an
/// nghttp2 client session on the decrypted bytes. nghttp2 does the framing, HPACK, flow control, SETTINGS,
/// GOAWAY and stream-state rules (RFC 9113); this type moves bytes and keeps each stream's request and response.
///
/// Streams that end are appended to ``finished`` for the loop to deliver; a connection that fails moves every
/// stream still on it there too and sets ``failure``. Thread-safety: loop thread only, which is also the
/// thread every nghttp2 callback runs on.
final class ClientConnection {
    enum Phase {
        case connecting, handshaking, open, closed
    }

    /// The connection-level receive window advertised to the server, bytes.
    static let connectionWindowBytes: Int32 = 1 << 20

    let target: RequestTarget
    let openedAt = ContinuousClock.now
    private(set) var phase = Phase.connecting
    private(set) var descriptor: Int32 = -1
    /// The local TCP port, once connected (two responses with the same port shared a connection).
    private(set) var localPort = 0
    /// Open streams by id.
    var streams: [Int32: ClientStream] = [:]
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

    /// Longest the connection may take from `connect` to the server's first SETTINGS.
    let setUpLimit: Duration
    private let tls: ClientTLSContext?
    private let maxBodyBytes: Int
    private var addresses: [SocketAddress]
    /// TCP keep-alive idle seconds for every socket tried, the first address's and the fallbacks'.
    private let keepAlive: TimeInterval?
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var blockedOnWrite = false
    private var readBuffer = [UInt8](repeating: 0, count: 32 * 1024)

    /// Starts connecting to `target` (non-blocking; the loop drives the rest through ``handle(events:)``).
    /// - Parameters:
    ///   - target: where to.
    ///   - tls: the client TLS context; nil for h2c (`http://`).
    ///   - configuration: keep-alive and limits.
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` when the name does not resolve or no
    ///   socket can be started.
    init(target: RequestTarget, tls: ClientTLSContext?, configuration: HTTP2Client.Configuration) throws(HTTP2ClientError) {
        self.target = target
        self.tls = tls
        maxBodyBytes = configuration.maxResponseBodyBytes
        setUpLimit = .seconds(configuration.connectTimeout)
        keepAlive = configuration.keepAliveInterval
        addresses = try SocketAddress.resolve(host: target.host, port: target.port)
        try connectNext()
    }

    deinit {
        release()
    }

    // MARK: State the loop reads

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
        case .handshaking, .open: return Int16(POLLIN) | (blockedOnWrite ? Int16(POLLOUT) : 0)
        }
    }

    /// True when nothing is left to do here: GOAWAY received and every stream ended.
    var isDrained: Bool { goAwayReceived && streams.isEmpty }

    // MARK: Driving

    /// Reacts to `poll`'s result for this socket: finishes connecting, advances the handshake, reads.
    func handle(events: Int16) {
        // Writable again: whatever waited for it retries below and sets the flag anew if still blocked (a flag
        // left set with nothing to write would keep POLLOUT in the poll set and spin the loop).
        if events & Int16(POLLOUT) != 0 { blockedOnWrite = false }
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

    /// Fails the connection when it is still warming up (``isWarmingUp``) ``setUpLimit`` after `connect`.
    func checkSetUp(at now: ContinuousClock.Instant) {
        guard isWarmingUp, now - openedAt > setUpLimit else { return }
        let stage = switch phase {
        case .connecting: "connect"
        case .handshaking: "SSL_do_handshake"
        default: "SETTINGS"
        }
        fail(.transport(function: stage, code: Int(ETIMEDOUT),
                        message: "no HTTP/2 connection to \(target.authority) within \(setUpLimit) (stuck at \(stage))"))
    }

    /// Hands a request to nghttp2 as a new stream; it goes out with the next ``flush()``.
    /// - Returns: the stream id, or nil when nghttp2 refused it (no stream ids left, or the session is closing).
    func start(_ job: Job, userAgent: String) -> Int32? {
        guard let session, phase == .open else { return nil }
        let request = job.pending.request
        let stream = ClientStream(job: job, openedConnection: !carriedStreams)
        let streamID = HeaderBlock.withFields(request: request, target: job.pending.target, userAgent: userAgent) { fields in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: clientReadRequestBody)
            let hasBody = !request.body.isEmpty
            return withUnsafeMutablePointer(to: &provider) { providerPointer in
                nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, hasBody ? providerPointer : nil, nil)
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

    /// Resets a stream the loop gave up on (deadline, cancellation) with CANCEL; its end is not reported.
    func abandon(streamID: Int32) {
        guard streams.removeValue(forKey: streamID) != nil else { return }
        if let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        }
        if streams.isEmpty { idleSince = .now }
    }

    /// Queues a keep-alive PING (RFC 9113 §6.7); its ACK clears ``pingSentAt``.
    func ping() {
        guard let session, phase == .open, pingSentAt == nil else { return }
        // Each PING carries its own number, so a late ACK of a forgotten one cannot clear a newer one.
        pingNumber &+= 1
        var payload = pingNumber.bigEndian
        let submitted = withUnsafeBytes(of: &payload) {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        guard submitted == 0 else { return }
        pingSentAt = .now
    }

    /// Stops waiting for the outstanding PING's ACK (the server proved alive otherwise).
    func forgetPing() {
        pingSentAt = nil
    }

    /// Writes what nghttp2 queued until the socket is full or nothing is left.
    func flush() {
        guard phase == .open, let session else { return }
        while true {
            if outboundOffset < outbound.count {
                guard writeOutbound() else { return }
                continue
            }
            outbound.removeAll(keepingCapacity: outbound.capacity <= 256 * 1024)
            outboundOffset = 0
            while outbound.count < 64 * 1024 {
                var chunk: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 {
                    fail(.transport(function: "nghttp2_session_mem_send", code: length, message: Self.nghttp2Message(length)))
                    return
                }
                guard length > 0, let chunk else { break }
                outbound.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            }
            if outbound.isEmpty {
                failIfSessionEnded(session)
                return
            }
        }
    }

    /// nghttp2 ended the session itself (it sent GOAWAY after the server broke the protocol) while streams are
    /// still open: it reads nothing more, so they would wait for their deadlines. Fail the connection instead,
    /// so they are resent at once on another one.
    private func failIfSessionEnded(_ session: OpaquePointer) {
        guard nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0, !isDrained else { return }
        let code = sentGoAwayCode ?? NGHTTP2_INTERNAL_ERROR.rawValue
        fail(.transport(function: "GOAWAY", code: Int(code),
                        message: "HTTP/2 session ended after a protocol error by \(target.authority) (\(HTTP2ErrorCode.name(code)))"))
    }

    /// Set by ``close(reason:)``: the client ended the connection, the server did not fail.
    private(set) var closedByClient = false

    /// Ends the connection politely (GOAWAY NO_ERROR, then close); streams still open fail as on a lost connection.
    func close(reason: String) {
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

    private func connectNext() throws(HTTP2ClientError) {
        var lastError = HTTP2ClientError.transport(function: "getaddrinfo", code: 0, message: "no address for \(target.host)")
        while !addresses.isEmpty {
            let address = addresses.removeFirst()
            switch address.startConnect(keepAlive: keepAlive) {
            case .success(let socket):
                descriptor = socket
                return
            case .failure(let error):
                lastError = error
            }
        }
        throw lastError
    }

    private func finishConnect() {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
        guard code == 0 else {
            Posix.closeDescriptor(descriptor)
            descriptor = -1
            let refused = HTTP2ClientError.transport(function: "connect", code: Int(code),
                                                     message: "\(Posix.message(code)) (\(target.authority))")
            do {
                try connectNext()
            } catch {
                fail(addresses.isEmpty ? refused : error)
            }
            return
        }
        localPort = SocketAddress.localPort(of: descriptor)
        guard target.isSecure else {
            openSession()
            return
        }
        guard let tls, let ssl = tls.makeConnection(to: target) else {
            fail(.transport(function: "SSL_new", code: 0, message: "out of memory"))
            return
        }
        self.ssl = ssl
        guard SSL_set_fd(ssl, descriptor) == 1 else {
            fail(.transport(function: "SSL_set_fd", code: 0, message: "cannot attach the socket"))
            return
        }
        phase = .handshaking
        advanceHandshake()
    }

    private func advanceHandshake() {
        guard let ssl else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            let reason = SSL_get_error(ssl, result)
            switch reason {
            case SSL_ERROR_WANT_READ: blockedOnWrite = false
            case SSL_ERROR_WANT_WRITE: blockedOnWrite = true
            default: fail(handshakeError(ssl, reason: reason))
            }
            return
        }
        blockedOnWrite = false
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length == 2, name[0] == UInt8(ascii: "h"), name[1] == UInt8(ascii: "2") else {
            fail(.transport(function: "SSL_get0_alpn_selected", code: 0,
                            message: "\(target.authority) did not agree on HTTP/2 (ALPN h2)"))
            return
        }
        openSession()
    }

    private func handshakeError(_ ssl: OpaquePointer, reason: Int32) -> HTTP2ClientError {
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            let text = String(cString: X509_verify_cert_error_string(verification))
            return .transport(function: "SSL_do_handshake", code: Int(verification),
                              message: "server certificate verification failed: \(text) (\(target.authority))")
        }
        if let refused = certificateRefusal() { return refused }
        let detail = OpenSSLErrorQueue.drain()
        let peerClosed = reason == SSL_ERROR_SYSCALL || reason == SSL_ERROR_ZERO_RETURN
        // OpenSSL's reason says what the server objected to (an alert such as "unknown ca" for a client
        // certificate it does not trust) or that it closed the connection ("unexpected eof").
        return .transport(function: "SSL_do_handshake", code: Int(reason),
                          message: "TLS handshake with \(target.authority) failed: "
                              + (detail ?? (peerClosed ? "the server closed the connection" : "no OpenSSL reason")))
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
              let created else {
            fail(.transport(function: "nghttp2_session_client_new", code: 0, message: "out of memory"))
            return
        }
        session = created
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(ClientStream.maxHeaderListBytes)),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Self.connectionWindowBytes)
        phase = .open
        lastReadAt = .now
        idleSince = .now
    }

    // MARK: I/O

    private func readInput() {
        guard let session else { return }
        while phase == .open {
            let count = readSome()
            if count > 0 {
                lastReadAt = .now
                let used = readBuffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
                if used < 0 {
                    fail(.transport(function: "nghttp2_session_mem_recv", code: used, message: Self.nghttp2Message(used)))
                }
                continue
            }
            return
        }
    }

    /// Reads decrypted bytes into `readBuffer`: their count, or 0 when nothing more is available now (or the
    /// connection failed, which ``fail(_:)`` recorded).
    private func readSome() -> Int {
        if let ssl {
            ERR_clear_error()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 { return Int(count) }
            let reason = SSL_get_error(ssl, count)
            switch reason {
            case SSL_ERROR_WANT_READ:
                return 0
            case SSL_ERROR_WANT_WRITE:
                blockedOnWrite = true
                return 0
            case SSL_ERROR_ZERO_RETURN, SSL_ERROR_SYSCALL:
                fail(.transport(function: "SSL_read", code: Int(reason), message: "connection closed by \(target.authority)"))
            default:
                // With TLS 1.3 a server's refusal of the client certificate ("alert unknown ca") arrives here,
                // after the client's side of the handshake is done.
                fail(certificateRefusal() ?? .transport(
                    function: "SSL_read", code: Int(reason),
                    message: "TLS error on the connection to \(target.authority): \(CheckedOpenSSL<TLSSetupFailure>.drainErrors())"))
            }
            return 0
        }
        let count = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return count }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return 0 }
        let code = count == 0 ? 0 : errno
        fail(.transport(function: "recv", code: Int(code),
                        message: count == 0 ? "connection closed by \(target.authority)" : Posix.message(code)))
        return 0
    }

    /// Writes from `outbound`. - Returns: true when something was written and more may go.
    private func writeOutbound() -> Bool {
        let offset = outboundOffset
        if let ssl {
            ERR_clear_error()
            let written = outbound.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(clamping: $0.count - offset)) }
            if written > 0 {
                outboundOffset += Int(written)
                blockedOnWrite = false
                return true
            }
            let reason = SSL_get_error(ssl, written)
            switch reason {
            case SSL_ERROR_WANT_WRITE: blockedOnWrite = true
            case SSL_ERROR_WANT_READ: blockedOnWrite = false
            default:
                let lost = HTTP2ClientError.transport(function: "SSL_write", code: Int(reason),
                                                      message: "connection to \(target.authority) lost")
                fail(closingReason(ssl) ?? lost)
            }
            return false
        }
        let written = outbound.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        if written > 0 {
            outboundOffset += written
            blockedOnWrite = false
            return true
        }
        if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            blockedOnWrite = true
        } else {
            fail(.transport(function: "send", code: Int(errno), message: Posix.message(errno)))
        }
        return false
    }

    /// Why the server closed, when it said so before closing: a write that fails on a closed socket hides a
    /// TLS alert still waiting to be read (a server refusing the client certificate sends "unknown ca" and
    /// closes, which a client that writes before it reads meets as a broken pipe).
    /// - Returns: the error the alert stands for, or nil when nothing more is known.
    private func closingReason(_ ssl: OpaquePointer) -> HTTP2ClientError? {
        ERR_clear_error()
        var scratch = [UInt8](repeating: 0, count: 256)
        let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        guard count <= 0, SSL_get_error(ssl, count) == SSL_ERROR_SSL else { return nil }
        return certificateRefusal() ?? .transport(
            function: "SSL_read", code: Int(SSL_ERROR_SSL),
            message: "connection to \(target.authority) lost: \(CheckedOpenSSL<TLSSetupFailure>.drainErrors())")
    }

    /// OpenSSL's reasons for the TLS alerts a server sends when it will not accept the client certificate
    /// (RFC 8446 §6.2: bad_certificate, unsupported_certificate, certificate_revoked, certificate_expired,
    /// certificate_unknown, unknown_ca, access_denied, certificate_required).
    private static let certificateAlerts: Set<Int32> = [
        SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE, SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,
        SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED, SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
        SSL_R_TLSV1_ALERT_ACCESS_DENIED, SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED,
    ]

    /// ``HTTP2ClientError/certificateRefused(alert:message:)`` when OpenSSL's queued error is such an alert
    /// (the queue is then drained); nil, with the queue untouched, otherwise.
    private func certificateRefusal() -> HTTP2ClientError? {
        let reason = Int32(ERR_GET_REASON(ERR_peek_error()))
        guard Self.certificateAlerts.contains(reason) else { return nil }
        let detail = CheckedOpenSSL<TLSSetupFailure>.drainErrors()
        return .certificateRefused(alert: Int(reason), message: "\(target.authority) refused the client certificate: \(detail)")
    }

    private func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if descriptor >= 0 { Posix.closeDescriptor(descriptor) }
        descriptor = -1
    }

    static func nghttp2Message(_ code: Int) -> String {
        String(cString: nghttp2_strerror(Int32(clamping: code)))
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
        guard let stream = streams[streamID], !stream.appendBody(bytes, limit: maxBodyBytes), let session else { return }
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
            if isAck, withUnsafeBytes(of: frame.pointee.ping.opaque_data, { $0.loadUnaligned(as: UInt64.self) })
                == pingNumber.bigEndian {
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
              code == NGHTTP2_ERR_FRAME_SIZE_ERROR.rawValue || code == NGHTTP2_ERR_HEADER_COMP.rawValue else { return }
        streams[frame.pointee.hd.stream_id]?.unsendable = .transport(
            function: "nghttp2_session_mem_send", code: Int(code),
            message: "the request's header block cannot be sent: \(Self.nghttp2Message(Int(code))) (nghttp2 sends at most 64 KiB)")
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let end = stream.end(errorCode: errorCode, localPort: localPort, maxBodyBytes: maxBodyBytes)
        if case .response = end { lastAnswerAt = .now }
        finished.append((stream, end))
        if streams.isEmpty { idleSince = .now }
    }

    /// Copies the next part of a request body for nghttp2's data provider.
    func readRequestBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
                         flags: UnsafeMutablePointer<UInt32>) -> Int {
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
