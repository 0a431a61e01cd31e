import CLWS
import RingerHTTP

/// HTTP request handling: collect the request, run the async handler, write the response.
extension ServerEngine {
    /// `LWS_CALLBACK_HTTP`: the head of a request (each request of an HTTP/1 keep-alive
    /// connection, or one HTTP/2 stream) has been parsed.
    func onRequestHead(_ wsi: OpaquePointer) -> Int32 {
        if let previous = session(for: wsi), previous.webSocket == nil,
            previous.phase == .awaitingHandler || previous.phase == .writing
        {
            // An HTTP/1 request pipelined behind one still being answered: lws parsed it early. It is never run (its
            // answer could not follow in order); the connection closes after the answer in progress, which says so.
            refusePipelining(previous)
            return 0
        }
        let session = makeSession(for: wsi)
        let request = RequestReader.head(of: wsi, extraHeaders: extraHeaderNames)
        session.request = request
        let declaredLength = RequestReader.contentLength(of: wsi)
        let mayHaveBody = ["POST", "PUT", "PATCH"].contains(request.method)

        budget(wsi, .busy)
        if let refusal = refusal(ofHead: wsi, request: request) {
            // Refused before anything runs; whatever body follows is not read, so the connection (or stream) closes.
            session.bodyIncomplete = mayHaveBody || (declaredLength ?? 0) > 0
            session.closesAfterResponse = true
            startResponse(refusal, for: session)
            return 0
        }

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
            budget(wsi, .readingBody)
            armRequestDeadline(session)
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

    /// Body completions lws may report again before the handler starts, before they count as lws' loop (below).
    static let repeatedCompletionsBeforeRefusal = 16

    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the whole body arrived, or, reported again, that another HTTP/1 request
    /// is pipelined behind it. lws 4.1.6 keeps the connection in its body state and reports a completion each time
    /// it looks at the bytes behind the body; it never parses them. Where it looks from its buflist loop in
    /// `lws_http_action` (the head came from buffered input) it does so in a tight loop until the callback fails.
    /// So the handler starts only on the next loop turn: a completion repeated before that and many times over is
    /// that loop, and the request is refused (``WebServer/Configuration/pipelinedRequestResponse``) without running;
    /// repeated after it, the answer goes out with `connection: close` and the pipelined request never runs.
    func onRequestBodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard let session = session(for: wsi) else { return 0 }
        if session.phase != .readingBody && session.bodyIncomplete {
            // A refused body (413, 408, 431) completing: lws discarded it; its answer is written or already out.
            session.bodyIncomplete = false
            return 0
        }
        switch session.phase {
        case .readingBody:
            session.bodyIncomplete = false
            session.phase = .dispatching
            budget(wsi, .busy)
            table.deadlines?.cancel(session.id)
            mailbox.post(.dispatch(session: session.id))
            return 0
        case .dispatching:
            session.closesAfterResponse = true
            session.repeatedCompletions += 1
            guard session.repeatedCompletions >= Self.repeatedCompletionsBeforeRefusal else { return 0 }
            session.phase = .writing
            var writer = ResponseWriter(
                response: configuration.pipelinedRequestResponse, isHTTP2: false, isHead: false,
                closesConnection: true)
            // Written at once (lws buffers what the socket does not take); -1 then ends lws' loop and the connection.
            while writer.writeNext(on: wsi, using: table.scratch) == .more {}
            return -1
        case .awaitingHandler, .writing:
            refusePipelining(session)
            return 0
        case .idle:
            // Bytes behind a body whose answer is already out: lws would go on reporting them.
            return -1
        }
    }

    /// Hands the complete request to the handler on Swift concurrency; the response comes back
    /// through the mailbox, keyed by session id.
    func dispatch(_ session: ServerSession) -> Int32 {
        guard var request = session.request else { return -1 }
        table.deadlines?.cancel(session.id)
        request.body = session.body
        session.body = []
        session.phase = .awaitingHandler
        let id = session.id
        let handler = self.handler
        let mailbox = self.mailbox
        let operation: @Sendable () async -> Void = { [request] in
            let response = await handler(request)
            mailbox.post(.response(session: id, response))
        }
        if configuration.handlesRequestsOnServiceThread {
            Task(executorPreference: executor, operation: operation)
        } else {
            Task(operation: operation)
        }
        return 0
    }

    /// Starts writing `response`; the writes happen in `LWS_CALLBACK_HTTP_WRITEABLE`.
    func startResponse(_ response: HTTPResponse, for session: ServerSession) {
        let request = session.request
        // An answer the client does not read must not hold its connection forever: it gets the request's deadline
        // too (``requestDeadlinePassed(_:)`` closes it), and the connection budget may shed it after a second.
        armRequestDeadline(session)
        budget(session.wsi, .answering)
        session.phase = .writing
        session.writer = ResponseWriter(
            response: response, isHTTP2: request?.httpVersion == 2,
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
            table.deadlines?.cancel(session.id)
            if writer.closesConnection { return -1 }
            // An HTTP/2 stream whose body we refused: reset it so the peer stops sending (RFC 9113 §8.1).
            if session.bodyIncomplete && session.request?.httpVersion == 2 { return -1 }
            // Ready for the next keep-alive request; nonzero means lws wants the connection closed.
            guard lws_http_transaction_completed(wsi) == 0 else { return -1 }
            budget(wsi, .idle)
            return 0
        }
    }

    /// Why a parsed head is answered without running the handler: a head over
    /// ``WebServer/Configuration/maxRequestHeaderBytes`` (431), a target lws could not keep whole (400), a
    /// `content-length` that is not a number of bytes (400), a header value holding a control character (400), or
    /// an HTTP/1 `transfer-encoding` (400 beside `content-length`, else 411).
    private func refusal(ofHead wsi: OpaquePointer, request: HTTPRequest) -> HTTPResponse? {
        if RequestReader.headBytes(of: wsi) > configuration.maxRequestHeaderBytes {
            return configuration.headersTooLargeResponse
        }
        if !RequestReader.targetIsWhole(of: wsi, request: request) { return configuration.badRequestTargetResponse }
        if RequestReader.hasInvalidContentLength(wsi) { return configuration.badContentLengthResponse }
        if RequestReader.hasControlCharacterInValue(wsi, extraHeaders: extraHeaderNames) {
            return configuration.badHeaderValueResponse
        }
        if request.httpVersion == 1, RequestReader.hasSpaceBeforeColonInFramingHeader(wsi) {
            return configuration.transferEncodingResponder(true)
        }
        if request.httpVersion == 1, RequestReader.copy(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil {
            return configuration.transferEncodingResponder(
                RequestReader.copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) != nil)
        }
        return nil
    }

    /// Closes a connection on which a request was pipelined behind `session`'s once that answer is out, announced
    /// with `connection: close` (RFC 9112 §9.6). lws keeps the pipelined bytes buffered meanwhile and reports them
    /// again about once a second (as a body completion); rx flow control is no way to hold them, since lws 4.1.6
    /// then stops serving the connection's writes too.
    private func refusePipelining(_ session: ServerSession) {
        session.closesAfterResponse = true
        session.writer?.announceClose()
    }

    /// Arms `session`'s ``WebServer/Configuration/requestDeadlineSeconds`` from now: for its body to arrive, or for its
    /// answer to be taken by the client (``requestDeadlinePassed(_:)``).
    func armRequestDeadline(_ session: ServerSession) {
        table.deadlines?.arm(
            session.id, at: loopTick + configuration.requestDeadlineSeconds * ServiceLoop.ticksPerSecond)
    }

    /// A request body missed ``WebServer/Configuration/requestDeadlineSeconds``: answer 408 and close. An answer
    /// still being written after as long (a client that does not read, "slow read") closes its connection unfinished.
    func requestDeadlinePassed(_ id: UInt64) {
        if let session = table.sessions[id], session.phase == .writing {
            lws_set_timeout(session.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            return
        }
        guard let session = table.sessions[id], session.phase == .readingBody else { return }
        session.body = []
        session.closesAfterResponse = true
        startResponse(configuration.requestTimeoutResponse, for: session)
    }

    /// `LWS_CALLBACK_RAW_RX` after lws met a method it does not know and handed the connection to the raw-socket
    /// role (`LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG`): answer
    /// ``WebServer/Configuration/unknownMethodResponse`` once, then close when it is written.
    func onUnknownMethod(_ wsi: OpaquePointer, bytes: UnsafeRawPointer?, count: Int) -> Int32 {
        budget(wsi, .answering)
        let session = self.session(for: wsi) ?? makeSession(for: wsi)
        guard session.writer == nil else { return 0 }
        var response = configuration.unknownMethodResponse
        if let responder = configuration.unknownMethodResponder, let bytes,
            let (method, path) = Self.requestLine(UnsafeRawBufferPointer(start: bytes, count: count))
        {
            response = responder(method, path)
        }
        var writer = ResponseWriter(
            response: response, isHTTP2: false, isHead: false,
            closesConnection: true, rawSocket: true)
        guard writer.writeNext(on: wsi, using: table.scratch) == .finished else { return -1 }
        session.writer = writer
        // Closed once lws has sent it all; a client that never reads loses the connection at the request deadline.
        session.phase = .writing
        armRequestDeadline(session)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The method and path (query cut off) of the first line of `bytes` when it reads `METHOD SP TARGET SP
    /// HTTP/1.x` in visible ASCII (RFC 9112 §3); nil otherwise, and the fixed answer goes out.
    static func requestLine(_ bytes: UnsafeRawBufferPointer) -> (method: String, path: String)? {
        let line = bytes.prefix(2048).prefix { $0 != 13 && $0 != 10 }
        let fields = line.split(separator: 32, omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (33...126).contains($0) } }),
            fields[2].starts(with: Array("HTTP/1.".utf8))
        else { return nil }
        let target = String(decoding: fields[1], as: UTF8.self)
        return (String(decoding: fields[0], as: UTF8.self), String(target.prefix { $0 != "?" }))
    }

    /// `LWS_CALLBACK_RAW_WRITEABLE`: close once the answer to an unknown method is out, and nothing of it is left
    /// in lws' send buffer (`lws_send_pipe_choked`).
    func onUnknownMethodWritable(_ wsi: OpaquePointer) -> Int32 {
        guard session(for: wsi)?.writer != nil else { return 0 }
        guard lws_send_pipe_choked(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return 0
        }
        return -1
    }
}
