internal import CCurl
import Foundation
import RingerSync

/// An HTTP/2 client for push providers (APNs, FCM): many concurrent requests multiplexed as streams over
/// few long-lived connections, each request with its own deadline.
///
/// One libcurl multi handle per client, driven by a dedicated thread (`curl_multi_poll` blocks, so it
/// stays off Swift's cooperative pool). ``send(_:)`` hands requests over through a locked queue and
/// `curl_multi_wakeup`; results come back by resuming the caller's continuation.
///
/// Thread safety: all methods may be called from any thread or task concurrently.
/// Call ``shutdown()`` when done; `deinit` does it too.
public final class HTTP2Client: Sendable {
    private let mailbox: LoopMailbox
    private let counters = LockedValue(Statistics())

    /// Creates a client and starts its loop thread. Connections open lazily, on the first request.
    /// - Parameter configuration: TLS, connection and limit settings; see ``Configuration``.
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` for a bad configuration, or
    ///   ``HTTP2ClientError/transport(function:code:message:)`` if libcurl cannot be initialised.
    public init(configuration: Configuration = Configuration()) throws {
        try configuration.validate()
        try Curl.initializeGlobally()
        guard let multi = curl_multi_init() else {
            throw Curl.error(CURLM_OUT_OF_MEMORY, function: "curl_multi_init")
        }
        do {
            try Curl.check(CCurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CCurl_PIPE_MULTIPLEX),
                           "curl_multi_setopt(PIPELINING)")
            try Curl.check(CCurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost),
                           "curl_multi_setopt(MAX_HOST_CONNECTIONS)")
            try Curl.check(CCurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams),
                           "curl_multi_setopt(MAX_CONCURRENT_STREAMS)")
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        let mailbox = LoopMailbox(multi: multi)
        self.mailbox = mailbox
        let counters = self.counters
        let thread = Thread {
            MultiLoop(mailbox: mailbox, configuration: configuration, statistics: counters).run()
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
        try Task.checkCancellation()
        let pending = PendingResponse(request: request)
        let mailbox = self.mailbox
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.install(continuation)
                if !mailbox.submit(pending) {
                    pending.resolve(.failure(HTTP2ClientError.shutDown))
                }
            }
        } onCancel: {
            mailbox.cancel(pending)
        }
    }

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
