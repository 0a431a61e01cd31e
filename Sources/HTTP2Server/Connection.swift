import SocketSupport
import CTLS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection, served by its own thread: a `poll` loop over the non-blocking socket and
/// the mailbox's wake pipe, non-blocking OpenSSL on top, and an ``H2Session`` on the decrypted bytes.
///
/// Thread-safety: every method runs on the connection's thread; other threads reach it only through the
/// ``ConnectionMailbox``.
final class Connection {
    /// Why the loop ended, which decides how politely the socket is closed.
    private enum Ending {
        /// The peer closed, or TLS failed: nothing more can be sent.
        case lost
        /// HTTP/2 is done (GOAWAY exchanged, streams closed) or failed after queuing its GOAWAY.
        case finished
        /// Server shutdown.
        case stop
        /// ``HTTP2Server/closeAllConnections()``, or no resources.
        case abort
    }

    private let id: UInt64
    private let descriptor: Int32
    private let mailbox: ConnectionMailbox
    private let context: ServerContext
    private let acceptedAt = ContinuousClock.now
    private var ssl: OpaquePointer?
    private var h2: H2Session?
    /// TLS plaintext waiting for SSL_write, and how much of it was written.
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    // Which operation last reported SSL_ERROR_WANT_WRITE, so the loop also polls for POLLOUT.
    private var handshakeWantsWrite = false
    private var readWantsWrite = false
    private var writeWantsWrite = false
    private var lastActivity = ContinuousClock.now
    private var terminating = false

    init(id: UInt64, descriptor: Int32, mailbox: ConnectionMailbox, context: ServerContext) {
        self.id = id
        self.descriptor = descriptor
        self.mailbox = mailbox
        self.context = context
    }

    /// The thread body: serves the connection until it ends, releases everything, deregisters.
    func run() {
        Posix.blockBrokenPipeSignal()
        let ending = serve()
        close(ending)
        context.connectionFinished(id: id)
    }

    private func serve() -> Ending {
        guard let ssl = context.tls.makeConnection() else { return .abort }
        self.ssl = ssl
        guard SSL_set_fd(ssl, descriptor) == 1 else { return .abort }
        SSL_set_accept_state(ssl)
        while true {
            let wantsWrite = handshakeWantsWrite || readWantsWrite || writeWantsWrite
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, 2, Posix.pollTimeout(until: deadline())) < 0, errno != EINTR { return .abort }
            if descriptors[1].revents != 0 {
                let delivery = mailbox.take()
                if let command = delivery.command { return command == .abort ? .abort : .stop }
                if let h2 {
                    if let limit = delivery.maxConcurrentStreams { h2.submitSettings(maxConcurrentStreams: limit) }
                    for (streamID, response) in delivery.responses { h2.deliver(response, streamID: streamID) }
                }
            }
            if h2 == nil {
                if let ending = advanceHandshake(ssl) { return ending }
                if h2 == nil { continue }
            }
            if let ending = exchange(ssl) { return ending }
        }
    }

    /// Reads what arrived, writes what nghttp2 queued, and applies the idle timeout.
    /// - Returns: How the connection ends, or nil to keep going.
    private func exchange(_ ssl: OpaquePointer) -> Ending? {
        guard let h2 else { return .abort }
        switch readInput(ssl, into: h2) {
        case .lost: return .lost
        case .protocolFailure:
            _ = flush(ssl, from: h2)
            return .finished
        case .open: break
        }
        if !terminating, let idle = deadline(), idle <= .now {
            // Idle: say GOAWAY (NO_ERROR); once it is out the session is finished and the loop closes politely.
            terminating = true
            h2.terminate()
        }
        guard flush(ssl, from: h2) else { return .lost }
        return h2.isFinished && outboundOffset >= outbound.count ? .finished : nil
    }

    /// When the loop must wake up without I/O: the handshake deadline, or the idle deadline while no stream
    /// is open.
    private func deadline() -> ContinuousClock.Instant? {
        guard let h2 else { return acceptedAt + .seconds(context.configuration.handshakeTimeout) }
        guard let idle = context.configuration.idleTimeout, !terminating, h2.openStreamCount == 0 else { return nil }
        return lastActivity + .seconds(idle)
    }

    /// Continues the TLS handshake; on completion requires ALPN "h2" when the client offered ALPN
    /// (RFC 9113 §3.2) and opens the session.
    /// - Returns: How the connection ends, or nil while it goes on.
    private func advanceHandshake(_ ssl: OpaquePointer) -> Ending? {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result != 1 {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: handshakeWantsWrite = false
            case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
            default: return .lost  // includes the no_application_protocol alert sent to HTTP/1.1-only clients
            }
            return acceptedAt + .seconds(context.configuration.handshakeTimeout) <= .now ? .lost : nil
        }
        handshakeWantsWrite = false
        var protocolName: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &protocolLength)
        // A client that offered ALPN without "h2" was refused by the selection callback. A client that
        // offered no ALPN at all speaks HTTP/2 with prior knowledge (RFC 9113 §3.3), as APNs clients such
        // as aioapns do; its connection preface is checked by nghttp2 like any other.
        if let protocolName {
            guard protocolLength == 2, protocolName[0] == UInt8(ascii: "h"), protocolName[1] == UInt8(ascii: "2")
            else { return .finished }
        }
        // Read once here, not per request: the certificate cannot change on the connection (renegotiation is off).
        let clientCertificate = context.configuration.clientCAPath == nil ? nil : PeerCertificate.read(ssl)
        guard let session = H2Session.open(context: context, mailbox: mailbox, clientCertificate: clientCertificate)
        else { return .abort }
        h2 = session
        lastActivity = .now
        return nil
    }

    private enum ReadOutcome { case open, lost, protocolFailure }

    /// Decrypts everything available and feeds it to nghttp2.
    private func readInput(_ ssl: OpaquePointer, into h2: H2Session) -> ReadOutcome {
        while true {
            ERR_clear_error()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                lastActivity = .now
                readWantsWrite = false
                let accepted = readBuffer.withUnsafeBytes { h2.receive(UnsafeRawBufferPointer(rebasing: $0[..<Int(count)])) }
                if !accepted { return .protocolFailure }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ:
                readWantsWrite = false
                return .open
            case SSL_ERROR_WANT_WRITE:
                readWantsWrite = true
                return .open
            default:
                return .lost  // close_notify, TCP EOF or reset, TLS error
            }
        }
    }

    /// Writes queued plaintext, refilling it from nghttp2, until everything is out or the socket is full.
    /// - Returns: false when the connection broke.
    private func flush(_ ssl: OpaquePointer, from h2: H2Session) -> Bool {
        while true {
            if outboundOffset < outbound.count {
                ERR_clear_error()
                let offset = outboundOffset
                let written = outbound.withUnsafeBytes { bytes in
                    SSL_write(ssl, bytes.baseAddress.map { $0 + offset }, Int32(clamping: bytes.count - offset))
                }
                if written > 0 {
                    outboundOffset += Int(written)
                    lastActivity = .now
                    continue
                }
                switch SSL_get_error(ssl, written) {
                case SSL_ERROR_WANT_WRITE:
                    writeWantsWrite = true
                    return true
                case SSL_ERROR_WANT_READ:
                    writeWantsWrite = false
                    return true
                default:
                    return false
                }
            }
            writeWantsWrite = false
            outbound.removeAll(keepingCapacity: outbound.capacity <= 256 * 1024)
            outboundOffset = 0
            guard h2.produce(into: &outbound, limit: 64 * 1024) else { return false }
            if outbound.isEmpty { return true }
        }
    }

    /// Ends the connection as `ending` asks and releases the socket, TLS state, session and mailbox.
    private func close(_ ending: Ending) {
        switch ending {
        case .abort, .lost:
            break
        case .stop:
            if let ssl, let h2 {
                h2.terminate()
                _ = flush(ssl, from: h2)
            }
            if let ssl { _ = SSL_shutdown(ssl) }
        case .finished:
            if let ssl { _ = SSL_shutdown(ssl) }
            lingerBeforeClose()
        }
        h2?.cancelHandlers()
        h2 = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Posix.closeDescriptor(descriptor)
        mailbox.close()
    }

    /// Half-closes and discards what the client still sends for up to two seconds. Closing a socket with
    /// unread input makes the kernel send RST, which can destroy the final responses and GOAWAY before the
    /// client read them. A server stop or abort cuts the wait short.
    private func lingerBeforeClose() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(2)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: mailbox.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, Posix.pollTimeout(until: deadline))
            if ready == 0 || (ready < 0 && errno != EINTR) { return }
            if descriptors[1].revents != 0, mailbox.take().command != nil { return }
            if descriptors[0].revents != 0 {
                let count = read(descriptor, &scratch, scratch.count)
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
            }
        }
    }
}
