import CTLS
import SocketSupport
import TLSSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection, served by its own thread: a `poll` loop over the socket and the mailbox's
/// wake pipe, a ``TLSSocket`` (handshake, read and write pumps) and an ``H2Session`` on the decrypted bytes.
///
/// Thread-safety: every method but `init` runs on the connection's thread (the socket and session check it
/// at run time); other threads reach it only through the ``ConnectionMailbox``.
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
    /// The TLS socket over `descriptor`, once made on the connection's thread; it then owns the descriptor.
    private var socket: TLSSocket?
    /// Whether `descriptor` was handed to a ``TLSSocket`` (which closes it), even one that failed to start.
    private var descriptorHandedOver = false
    private var h2: H2Session?
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
        SSL_set_accept_state(ssl)
        descriptorHandedOver = true
        guard
            let socket = try? TLSSocket(
                descriptor: descriptor, ssl: ssl, peer: "the client", readBufferBytes: 16 * 1024)
        else { return .abort }
        self.socket = socket
        while true {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN) | (socket.wantsWritable ? Int16(POLLOUT) : 0), revents: 0),
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
                if let ending = advanceHandshake(socket) { return ending }
                if h2 == nil { continue }
            }
            if let ending = exchange(socket) { return ending }
        }
    }

    /// Reads what arrived, writes what nghttp2 queued, and applies the idle timeout.
    /// - Returns: How the connection ends, or nil to keep going.
    private func exchange(_ socket: TLSSocket) -> Ending? {
        guard let h2 else { return .abort }
        let read = socket.readAvailable { bytes in
            lastActivity = .now
            return h2.receive(UnsafeRawBufferPointer(bytes))
        }
        switch read {
        case .closed: return .lost  // close_notify, TCP EOF or reset, TLS error
        case .rejected:
            _ = flush(socket, from: h2)
            return .finished
        case .drained: break
        }
        if !terminating, let idle = deadline(), idle <= .now {
            // Idle: say GOAWAY (NO_ERROR); once it is out the session is finished and the loop closes politely.
            terminating = true
            h2.terminate()
        }
        guard flush(socket, from: h2) else { return .lost }
        return h2.isFinished && !socket.hasUnsentBytes ? .finished : nil
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
    private func advanceHandshake(_ socket: TLSSocket) -> Ending? {
        switch socket.advanceHandshake() {
        case .pending:
            return acceptedAt + .seconds(context.configuration.handshakeTimeout) <= .now ? .lost : nil
        case .failed:
            return .lost  // includes the no_application_protocol alert sent to HTTP/1.1-only clients
        case .done:
            break
        }
        // A client that offered ALPN without "h2" was refused by the selection callback. A client that
        // offered no ALPN at all speaks HTTP/2 with prior knowledge (RFC 9113 §3.3), as APNs clients such
        // as aioapns do; its connection preface is checked by nghttp2 like any other.
        if let negotiated = socket.negotiatedProtocol, negotiated != "h2" { return .finished }
        // Read once here, not per request: the certificate cannot change on the connection (renegotiation is off).
        let clientCertificate =
            context.configuration.clientCAPath == nil ? nil : socket.connection.flatMap(PeerCertificate.read)
        guard let session = H2Session.open(context: context, mailbox: mailbox, clientCertificate: clientCertificate)
        else { return .abort }
        h2 = session
        lastActivity = .now
        return nil
    }

    /// Writes what nghttp2 queued until everything is out or the socket is full.
    /// - Returns: false when the connection broke.
    private func flush(_ socket: TLSSocket, from h2: H2Session) -> Bool {
        let end = socket.flush { output in
            guard h2.produce(into: &output, limit: TLSSocket.writeChunkBytes) else { return false }
            if !output.isEmpty { lastActivity = .now }
            return true
        }
        switch end {
        case .done, .blocked: return true
        case .producerFailed, .failed: return false
        }
    }

    /// Ends the connection as `ending` asks and releases the socket, TLS state, session and mailbox.
    private func close(_ ending: Ending) {
        switch ending {
        case .abort, .lost:
            break
        case .stop:
            if let socket, let h2 {
                h2.terminate()
                _ = flush(socket, from: h2)
            }
            socket?.sendCloseNotify()
        case .finished:
            socket?.sendCloseNotify()
            lingerBeforeClose()
        }
        h2?.cancelHandlers()
        h2 = nil
        socket?.close()
        socket = nil
        if !descriptorHandedOver { Posix.closeDescriptor(descriptor) }
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
