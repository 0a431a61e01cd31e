import Foundation
import RingerSupport
import Synchronization

/// An HTTP/2 client for push providers (APNs, FCM): many concurrent requests multiplexed as streams over
/// few long-lived connections, each request with its own deadline.
///
/// Built on libnghttp2 (framing, HPACK, flow control, stream states) and OpenSSL (TLS 1.2+, ALPN h2),
/// driven by one dedicated thread per client that polls its sockets (``ClientLoop``), so blocking I/O stays
/// off Swift's cooperative pool. ``send(_:)`` hands requests over through a locked queue and a wake pipe;
/// results come back by resuming the caller's continuation. HTTP/2 only: `https://` negotiates h2 by ALPN,
/// `http://` needs ``Configuration/http2PriorKnowledge`` (h2c).
///
/// Thread safety: all methods may be called from any thread or task concurrently.
/// Call ``shutdown()`` when done; `deinit` does it too.
public final class HTTP2Client: Sendable {
    private let mailbox: LoopMailbox
    private let counters = LockedValue(Statistics())
    /// The target of the last request whose URL was split in full: the next one to the same origin reuses it.
    private let lastTarget = Mutex<RequestTarget?>(nil)
    private let configuration: Configuration

    /// Creates a client and starts its loop thread. Connections open lazily, on the first request.
    /// - Parameter configuration: TLS, connection and limit settings; see ``Configuration``.
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` for a bad configuration, or
    ///   ``HTTP2ClientError/transport(function:code:message:)`` when OpenSSL refuses the CA file, the client
    ///   certificate, its key or password (named by the failing call, never the password), or no wake pipe can
    ///   be made.
    public init(configuration: Configuration = Configuration()) throws {
        try configuration.validate()
        let tls = try ClientTLSContext(configuration: configuration)
        let mailbox = try LoopMailbox()
        self.mailbox = mailbox
        self.configuration = configuration
        let counters = self.counters
        let thread = Thread {
            ClientLoop(mailbox: mailbox, configuration: configuration, tls: tls, statistics: counters).run()
        }
        thread.name = "HTTP2Client"
        mailbox.loopWillStart()
        thread.start()
    }

    deinit {
        shutdown()
    }

    /// Sends one request and waits for its complete response.
    ///
    /// Any HTTP status is a response (check ``HTTP2Response/status``); only failures to get one throw.
    /// Cancelling the calling task resets the request's stream and throws `CancellationError` promptly.
    /// - Parameter request: The request; validated before anything is sent.
    /// - Returns: The final response (after any 1xx interim responses).
    /// - Throws: ``HTTP2ClientError/timedOut`` when ``HTTP2Request/timeout`` passes first;
    ///   ``HTTP2ClientError/transport(function:code:message:)`` for connection, TLS or protocol failures;
    ///   ``HTTP2ClientError/invalidRequest(_:)`` for a malformed request;
    ///   ``HTTP2ClientError/shutDown`` after or during ``shutdown()``; `CancellationError` on cancellation.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try request.validate()
        let known = lastTarget.withLock { $0 }
        let (target, reused) = try RequestTarget.parse(url: request.url, reusing: known)
        if !reused { lastTarget.withLock { $0 = target } }
        guard target.isSecure || configuration.http2PriorKnowledge else {
            throw HTTP2ClientError.invalidRequest(
                "http:// URLs need http2PriorKnowledge (h2c); this client speaks HTTP/2 only")
        }
        try Task.checkCancellation()
        let pending = PendingResponse(request: request, target: target)
        let mailbox = self.mailbox
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                pending.install(continuation)
                if !mailbox.submit(pending) {
                    pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
            }
        } onCancel: {
            mailbox.cancel(pending)
        }
    }

    /// Requests this client's connections can carry at once, as its loop last saw them: the servers'
    /// SETTINGS_MAX_CONCURRENT_STREAMS capped by ``Configuration/maxConcurrentStreams``, added up over the
    /// open connections; 1 before a connection has the server's SETTINGS (the limit is not known yet); 0 while
    /// reconnects to a failing host back off. Requests beyond it wait in the client for a free stream.
    /// ``HTTP2ClientPool`` fills one connection up to it before using the next. Thread-safe.
    public var streamCapacity: Int { mailbox.streamCapacity }

    /// Connections opened and recycled, requests resent and timed out so far. Thread-safe.
    public var statistics: Statistics {
        counters.withLock { $0 }
    }

    /// Fails every queued and in-flight request with ``HTTP2ClientError/shutDown``, closes all
    /// connections and waits for the loop thread to exit. Later ``send(_:)`` calls throw `shutDown`.
    ///
    /// Idempotent and safe from any thread. It blocks the caller only while the loop thread finishes its
    /// current step and tears down (no network wait).
    public func shutdown() {
        mailbox.requestShutdown()
        mailbox.waitForLoopExit()
    }
}
