import CTLS
import OpenSSLSupport
import SocketSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected non-blocking TCP socket with OpenSSL on top (or plaintext, for h2c): the TLS handshake, a read
/// pump that hands decrypted bytes to the protocol above, a write pump that drains what the protocol queued,
/// and the TLS alerts that say why a peer refused this side's certificate. The HTTP/2 client and server both
/// drive their nghttp2 sessions over it; it knows nothing of HTTP/2 beyond reporting the ALPN choice.
///
/// `SSL_ERROR_WANT_WRITE` from any operation makes ``wantsWritable`` true until that operation is retried, so
/// the loop polls for `POLLOUT` exactly while OpenSSL waits for it (a flag left set would spin the loop).
/// Thread-safety: loop thread only (the creating thread), checked at run time.
public final class TLSSocket {
    /// The socket, for `poll`; -1 after ``close()``.
    public private(set) var descriptor: Int32
    /// How messages name the peer.
    public let peer: String
    private var ssl: OpaquePointer?
    private let loop = LoopThread()
    private var handshakeWantsWrite = false
    private var readWantsWrite = false
    private var writeWantsWrite = false
    /// Plaintext waiting to be written, and how much of it was.
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var readBuffer: [UInt8]

    /// Largest chunk asked of the producer per refill of the write buffer.
    public static let writeChunkBytes = 64 * 1024

    /// Takes ownership of a connected socket and, for TLS, of an `SSL` already set to its role
    /// (`SSL_set_connect_state` or `SSL_set_accept_state`).
    /// - Parameters:
    ///   - descriptor: a connected, non-blocking socket.
    ///   - ssl: the TLS connection; nil for plaintext (h2c).
    ///   - peer: how messages name the peer.
    ///   - readBufferBytes: size of one read, and of OpenSSL's read-ahead buffer (which OpenSSL keeps at least one
    ///     TLS record long, about 16.7 KB).
    /// - Throws: ``TLSSocketError`` (`SSL_set_fd`) when OpenSSL cannot attach the socket; both are then released.
    public init(
        descriptor: Int32, ssl: OpaquePointer?, peer: String, readBufferBytes: Int = 32 * 1024
    ) throws(TLSSocketError) {
        self.descriptor = descriptor
        self.ssl = ssl
        self.peer = peer
        readBuffer = [UInt8](repeating: 0, count: readBufferBytes)
        if let ssl, SSL_set_fd(ssl, descriptor) != 1 {
            close()
            throw TLSSocketError(function: "SSL_set_fd", code: 0, message: "cannot attach the socket")
        }
        if let ssl {
            // Without read-ahead OpenSSL reads each record's 5-byte header and then its body: two system calls per
            // record. With it, one read takes whatever has arrived, up to the buffer, and later records are
            // decrypted from memory.
            SSL_set_read_ahead(ssl, 1)
            SSL_set_default_read_buffer_len(ssl, readBufferBytes)
        }
    }

    deinit {
        close()
    }

    /// True for a TLS socket, false for plaintext.
    public var isSecure: Bool { ssl != nil }

    /// Whether the loop must poll for `POLLOUT`: some operation waits for the socket to become writable.
    public var wantsWritable: Bool { handshakeWantsWrite || readWantsWrite || writeWantsWrite }

    /// Whether queued plaintext is still waiting to be written.
    public var hasUnsentBytes: Bool { outboundOffset < outbound.count }

    /// The `SSL`, for reading what the handshake settled (the peer certificate); nil for plaintext or once closed.
    public var connection: OpaquePointer? { ssl }

    // MARK: Handshake

    /// Where the handshake stands.
    public enum HandshakeProgress {
        /// Done (plaintext sockets have none). With read-ahead, the handshake's last read may have taken bytes the
        /// peer sent right after it, which `poll` will not report: read (``readAvailable(_:)``) before waiting.
        case done
        /// Waiting for the socket; call again when `poll` reports it ready.
        case pending
        /// Failed; the socket is of no further use.
        case failed(TLSSocketError)
    }

    /// Advances the TLS handshake as far as the socket allows.
    public func advanceHandshake() -> HandshakeProgress {
        loop.check("TLSSocket")
        guard let ssl else { return descriptor >= 0 ? .done : .failed(closedError) }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            let reason = SSL_get_error(ssl, result)
            switch reason {
            case SSL_ERROR_WANT_READ: handshakeWantsWrite = false
            case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
            default: return .failed(handshakeError(ssl, reason: reason))
            }
            return .pending
        }
        handshakeWantsWrite = false
        return .done
    }

    /// The application protocol ALPN settled on (RFC 7301), e.g. `h2`; nil when none was negotiated.
    public var negotiatedProtocol: String? {
        guard let ssl else { return nil }
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    private func handshakeError(_ ssl: OpaquePointer, reason: Int32) -> TLSSocketError {
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            let text = String(cString: X509_verify_cert_error_string(verification))
            let whose = SSL_is_server(ssl) == 1 ? "client" : "server"
            return TLSSocketError(
                function: "SSL_do_handshake", code: Int(verification),
                message: "\(whose) certificate verification failed: \(text) (\(peer))")
        }
        if let refused = certificateRefusal() { return refused }
        let detail = OpenSSLErrorQueue.drain()
        let peerClosed = reason == SSL_ERROR_SYSCALL || reason == SSL_ERROR_ZERO_RETURN
        let closer = SSL_is_server(ssl) == 1 ? "the client" : "the server"
        // OpenSSL's reason says what the peer objected to (an alert such as "unknown ca" for a client
        // certificate it does not trust) or that it closed the connection ("unexpected eof").
        return TLSSocketError(
            function: "SSL_do_handshake", code: Int(reason),
            message: "TLS handshake with \(peer) failed: "
                + (detail ?? (peerClosed ? "\(closer) closed the connection" : "no OpenSSL reason")))
    }

    // MARK: Read pump

    /// How a read pump ended.
    public enum ReadEnd {
        /// What was available was read and consumed, up to a read that was not filled with nothing left in OpenSSL;
        /// wait for `POLLIN` (level-triggered: bytes that arrived since are reported at once).
        case drained
        /// The consumer refused bytes (a protocol error); the socket is still open.
        case rejected
        /// The peer closed, or the connection failed: nothing more will arrive.
        case closed(TLSSocketError)
    }

    /// Reads (and decrypts) what is available, handing each chunk to `consume` as it comes.
    ///
    /// It stops at the first read that the kernel or OpenSSL could not fill with nothing left buffered, without
    /// asking again only to hear `EAGAIN` (one system call fewer per wake-up): for a loop that waits with `poll`,
    /// which reports a socket that still has bytes as readable at once. It is not for edge-triggered waits.
    /// - Parameter consume: takes the chunk (valid only during the call); returns false to stop reading.
    public func readAvailable(_ consume: (UnsafeBufferPointer<UInt8>) -> Bool) -> ReadEnd {
        loop.check("TLSSocket")
        while true {
            let count: Int
            switch readSome() {
            case .bytes(let read): count = read
            case .wouldBlock: return .drained
            case .closed(let error): return .closed(error)
            }
            let accepted = readBuffer.withUnsafeBufferPointer { consume(UnsafeBufferPointer(rebasing: $0[..<count])) }
            if !accepted { return .rejected }
            // A read that filled the buffer, or bytes OpenSSL has read but not yet returned, may mean more.
            guard count == readBuffer.count || ssl.map({ SSL_has_pending($0) != 0 }) == true else { return .drained }
        }
    }

    private enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case closed(TLSSocketError)
    }

    private func readSome() -> ReadResult {
        guard descriptor >= 0 else { return .closed(closedError) }
        if let ssl {
            ERR_clear_error()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                readWantsWrite = false
                return .bytes(Int(count))
            }
            let reason = SSL_get_error(ssl, count)
            switch reason {
            case SSL_ERROR_WANT_READ:
                readWantsWrite = false
                return .wouldBlock
            case SSL_ERROR_WANT_WRITE:
                readWantsWrite = true
                return .wouldBlock
            case SSL_ERROR_ZERO_RETURN, SSL_ERROR_SYSCALL:
                return .closed(
                    TLSSocketError(function: "SSL_read", code: Int(reason), message: "connection closed by \(peer)"))
            default:
                // With TLS 1.3 a server's refusal of the client certificate ("alert unknown ca") arrives here,
                // after the client's side of the handshake is done.
                return .closed(
                    certificateRefusal()
                        ?? TLSSocketError(
                            function: "SSL_read", code: Int(reason),
                            message: "TLS error on the connection to \(peer): \(Self.drainErrors())"))
            }
        }
        let count = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return .wouldBlock }
        let code = count == 0 ? 0 : errno
        return .closed(
            TLSSocketError(
                function: "recv", code: Int(code),
                message: count == 0 ? "connection closed by \(peer)" : Posix.message(code)))
    }

    // MARK: Write pump

    /// How a write pump ended.
    public enum FlushEnd {
        /// Everything queued was written and the producer has nothing more.
        case done
        /// The socket is full; the rest goes when it is writable (or readable, when TLS asked).
        case blocked
        /// The producer failed (it recorded why); nothing was lost on the socket.
        case producerFailed
        /// The connection broke.
        case failed(TLSSocketError)
    }

    /// Writes queued plaintext, refilling the queue from `produce`, until everything is out or the socket is full.
    /// - Parameter produce: appends up to ``writeChunkBytes`` more bytes to an empty buffer (appending nothing
    ///   when it has none); returns false when it failed.
    public func flush(_ produce: (inout [UInt8]) -> Bool) -> FlushEnd {
        loop.check("TLSSocket")
        while true {
            if hasUnsentBytes {
                switch writeSome() {
                case .bytes: continue
                case .wouldBlock: return .blocked
                case .closed(let error): return .failed(error)
                }
            }
            writeWantsWrite = false
            outbound.removeAll(keepingCapacity: outbound.capacity <= 256 * 1024)
            outboundOffset = 0
            guard produce(&outbound) else { return .producerFailed }
            if outbound.isEmpty { return .done }
        }
    }

    private func writeSome() -> ReadResult {
        guard descriptor >= 0 else { return .closed(closedError) }
        let offset = outboundOffset
        if let ssl {
            ERR_clear_error()
            let written = outbound.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + offset, Int32(clamping: $0.count - offset))
            }
            if written > 0 {
                outboundOffset += Int(written)
                return .bytes(Int(written))
            }
            let reason = SSL_get_error(ssl, written)
            switch reason {
            case SSL_ERROR_WANT_WRITE:
                writeWantsWrite = true
                return .wouldBlock
            case SSL_ERROR_WANT_READ:
                writeWantsWrite = false
                return .wouldBlock
            default:
                return .closed(
                    closingReason(ssl)
                        ?? TLSSocketError(
                            function: "SSL_write", code: Int(reason),
                            message: "connection to \(peer) lost"))
            }
        }
        let written = outbound.withUnsafeBytes {
            send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        if written > 0 {
            outboundOffset += written
            return .bytes(written)
        }
        if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            writeWantsWrite = true
            return .wouldBlock
        }
        let code = errno
        return .closed(TLSSocketError(function: "send", code: Int(code), message: Posix.message(code)))
    }

    // MARK: Closing

    /// Sends TLS close_notify (RFC 8446 §6.1), best effort; plaintext sockets have none.
    public func sendCloseNotify() {
        loop.check("TLSSocket")
        if let ssl { _ = SSL_shutdown(ssl) }
    }

    /// Releases the TLS state and closes the socket. Idempotent.
    public func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if descriptor >= 0 { Posix.closeDescriptor(descriptor) }
        descriptor = -1
    }

    private var closedError: TLSSocketError {
        TLSSocketError(function: "close", code: Int(EBADF), message: "connection to \(peer) already closed")
    }

    // MARK: TLS alerts

    /// Why the peer closed, when it said so before closing: a write that fails on a closed socket hides a
    /// TLS alert still waiting to be read (a server refusing the client certificate sends "unknown ca" and
    /// closes, which a client that writes before it reads meets as a broken pipe).
    /// - Returns: the error the alert stands for, or nil when nothing more is known.
    private func closingReason(_ ssl: OpaquePointer) -> TLSSocketError? {
        ERR_clear_error()
        var scratch = [UInt8](repeating: 0, count: 256)
        let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        guard count <= 0, SSL_get_error(ssl, count) == SSL_ERROR_SSL else { return nil }
        return certificateRefusal()
            ?? TLSSocketError(
                function: "SSL_read", code: Int(SSL_ERROR_SSL),
                message: "connection to \(peer) lost: \(Self.drainErrors())")
    }

    /// OpenSSL's reasons for the TLS alerts a peer sends when it will not accept this side's certificate
    /// (RFC 8446 §6.2: bad_certificate, unsupported_certificate, certificate_revoked, certificate_expired,
    /// certificate_unknown, unknown_ca, access_denied, certificate_required).
    private static let certificateAlerts: Set<Int32> = [
        SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE,
        SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,
        SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED, SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
        SSL_R_TLSV1_ALERT_ACCESS_DENIED, SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED,
    ]

    /// A certificate refusal when OpenSSL's queued error is such an alert (the queue is then drained); nil,
    /// with the queue untouched, otherwise.
    private func certificateRefusal() -> TLSSocketError? {
        let reason = Int32(ERR_GET_REASON(ERR_peek_error()))
        guard Self.certificateAlerts.contains(reason) else { return nil }
        // The server side offers its own certificate; the client side, when asked, its client certificate.
        let refused = ssl.map { SSL_is_server($0) == 1 } == true ? "the server certificate" : "the client certificate"
        return TLSSocketError(
            function: "TLS alert", code: Int(reason),
            message: "\(peer) refused \(refused): \(Self.drainErrors())",
            refusedCertificateAlert: Int(reason))
    }

    private static func drainErrors() -> String {
        OpenSSLErrorQueue.drain() ?? "no OpenSSL reason"
    }
}
