import HTTPTypes
import CLWS

/// HTTP request handling: collect the request, run the async handler, write the response.
extension ServerEngine {
    /// `LWS_CALLBACK_HTTP`: the head of a request (each request of an HTTP/1 keep-alive
    /// connection, or one HTTP/2 stream) has been parsed.
    func onRequestHead(_ wsi: OpaquePointer) -> Int32 {
        let session = makeSession(for: wsi)
        let request = RequestReader.head(of: wsi, extraHeaders: extraHeaderNames)
        session.request = request
        let declaredLength = RequestReader.contentLength(of: wsi)
        let mayHaveBody = ["POST", "PUT", "PATCH"].contains(request.method)

        if let declaredLength, declaredLength > configuration.maxRequestBodyBytes {
            // Answer at once without reading the body; lws discards the rest (HTTP/1) or we reset
            // the stream (HTTP/2) once the answer is out.
            session.bodyIncomplete = true
            startResponse(configuration.payloadTooLargeResponse, for: session)
            return 0
        }
        if let declaredLength {
            // lws itself reports an explicitly empty POST body (HTTP_BODY + HTTP_BODY_COMPLETION).
            guard declaredLength > 0 || request.method == "POST" else { return dispatch(session) }
            session.phase = .readingBody
            session.bodyIncomplete = true
            return 0
        }
        if request.httpVersion == 2 && mayHaveBody {
            // HTTP/2 lets the stream end mark the body's end (RFC 9113 §8.1), but lws 4.1.6 never
            // reports that end without a content-length: answer 411 (RFC 9110 §15.5.12) at once
            // rather than leave the stream hanging.
            session.bodyIncomplete = true
            startResponse(.json(status: 411, #"{"reason":"LengthRequired"}"#), for: session)
            return 0
        }
        // HTTP/1 without content-length has no body (RFC 9112 §6.3). lws would still wait for
        // one on POST/PUT/PATCH, so such a connection is closed after the response.
        session.closesAfterResponse = request.httpVersion == 1 && mayHaveBody
        return dispatch(session)
    }

    /// `LWS_CALLBACK_HTTP_BODY`: a piece of the request body.
    func onRequestBody(_ wsi: OpaquePointer, bytes: UnsafeMutableRawPointer?, count: Int) -> Int32 {
        guard let session = session(for: wsi), session.phase == .readingBody else { return 0 }
        guard session.body.count + count <= configuration.maxRequestBodyBytes else {
            session.body = []
            startResponse(configuration.payloadTooLargeResponse, for: session)
            return 0
        }
        if let bytes, count > 0 {
            session.body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
        }
        return 0
    }

    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the whole body arrived.
    func onRequestBodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        guard session.phase == .readingBody || session.bodyIncomplete else {
            // A second completion for one body: lws 4.1.6 loops on it when another request is
            // pipelined behind an HTTP/1 body (lws_http_action). Closing is the only way out.
            return -1
        }
        session.bodyIncomplete = false
        guard session.phase == .readingBody else { return 0 }
        return dispatch(session)
    }

    /// Hands the complete request to the handler on Swift concurrency; the response comes back
    /// through the mailbox, keyed by session id.
    private func dispatch(_ session: ServerSession) -> Int32 {
        guard var request = session.request else { return -1 }
        request.body = session.body
        session.body = []
        session.phase = .awaitingHandler
        let id = session.id
        let handler = self.handler
        let mailbox = self.mailbox
        Task {
            let response = await handler(request)
            mailbox.post(.response(session: id, response))
        }
        return 0
    }

    /// Starts writing `response`; the writes happen in `LWS_CALLBACK_HTTP_WRITEABLE`.
    func startResponse(_ response: HTTPResponse, for session: ServerSession) {
        let request = session.request
        session.phase = .writing
        session.writer = ResponseWriter(response: response, isHTTP2: request?.httpVersion == 2,
                                        isHead: request?.method == "HEAD",
                                        closesConnection: session.closesAfterResponse)
        lws_callback_on_writable(session.wsi)
    }

    /// `LWS_CALLBACK_HTTP_WRITEABLE`: write the next piece of the pending response.
    func onHTTPWritable(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi), session.phase == .writing, var writer = session.writer else {
            return 0
        }
        let outcome = writer.writeNext(on: wsi, using: table.scratch)
        session.writer = writer
        switch outcome {
        case .failed:
            return -1
        case .more:
            lws_callback_on_writable(wsi)
            return 0
        case .finished:
            session.writer = nil
            session.phase = .idle
            if writer.closesConnection { return -1 }
            // An HTTP/2 stream whose body we refused: reset it so the peer stops sending (RFC 9113 §8.1).
            if session.bodyIncomplete && session.request?.httpVersion == 2 { return -1 }
            // Ready for the next keep-alive request; nonzero means lws wants the connection closed.
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
    }
}
