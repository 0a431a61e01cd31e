import CNGHTTP2
import RingerHTTP
import RingerSupport

/// Request admission, dispatch to the handler, and response submission.
extension H2Session {
    /// Counts a new request against the fault hooks. ``HTTP2Server/sendGoAway(afterStreams:connections:)``: the
    /// request that reaches the limit is served and becomes GOAWAY's last-stream-id; later ones are refused with
    /// REFUSED_STREAM, which RFC 9113 §8.7 defines as "not processed, safe to retry" (they can arrive before the
    /// GOAWAY is out). ``HTTP2Server/closeConnections(afterStreams:connections:)``: the request after the limit is
    /// never processed and the connection is cut at once.
    /// - Returns: false when the stream was refused or the connection is being cut.
    func admit(_ stream: StreamRecord) -> Bool {
        if let last = goAwayLastStreamID, stream.id > last {
            refuse(stream)
            return false
        }
        let served = acceptedRequests
        let (cut, goAwayNow, goAwayAfter) = context.controls.withLock { controls -> (Bool, Bool, Bool) in
            if let limit = controls.closeAtRequest, served >= limit,
                ServerContext.Controls.take(&controls.closeConnectionsLeft)
            {
                return (true, false, false)
            }
            guard let limit = controls.goAwayAfterRequests, served + 1 >= limit else { return (false, false, false) }
            // Only the connection that takes the budget says goodbye; the others carry on.
            guard ServerContext.Controls.take(&controls.goAwayConnectionsLeft) else { return (false, false, false) }
            return served >= limit ? (false, true, false) : (false, false, true)
        }
        if cut {
            stream.answeredEarly = true
            mailbox.post(.abort)
            return false
        }
        if goAwayNow {
            sendGoAway(lastStreamID: lastAcceptedStreamID)
            refuse(stream)
            return false
        }
        acceptedRequests += 1
        lastAcceptedStreamID = stream.id
        if goAwayAfter {
            sendGoAway(lastStreamID: stream.id)
        }
        return true
    }

    /// Answers at once when the header list was too long (431) or `content-length` announces a body over
    /// the limit (413), so the client stops before uploading it.
    func checkLimits(_ stream: StreamRecord, endStream: Bool) {
        if stream.headerListTooLarge {
            answerEarly(
                stream, status: 431,
                reason: "request header list exceeds \(context.configuration.maxRequestHeaderBytes) bytes")
        } else if !endStream, let declared = stream.headers["content-length"].flatMap({ Int($0) }),
            declared > context.configuration.maxRequestBodyBytes
        {
            answerEarly(
                stream, status: 413, reason: "request body exceeds \(context.configuration.maxRequestBodyBytes) bytes")
        }
    }

    /// Starts the handler for a complete request on Swift concurrency; its result comes back through the
    /// mailbox, so a slow handler never holds up other streams.
    func dispatch(_ stream: StreamRecord) {
        guard !stream.answeredEarly, stream.headersComplete, stream.task == nil else { return }
        let request = stream.makeRequest(clientCertificate: clientCertificate)
        stream.body = []
        let handler = context.handler
        let mailbox = self.mailbox
        let streamID = stream.id
        stream.task = Task {
            let response = await handler(request)
            if response.closesConnection {
                mailbox.post(.abort)
            } else {
                mailbox.post(response, streamID: streamID)
            }
        }
    }

    /// Sends a plain-text error response decided by the server itself; the rest of the request is discarded
    /// as it arrives (nghttp2 keeps the flow-control window open). See ``HTTP2Server/Configuration/maxRequestBodyBytes``
    /// for why no RST_STREAM(NO_ERROR) follows.
    func answerEarly(_ stream: StreamRecord, status: Int, reason: String) {
        stream.answeredEarly = true
        submit(
            HTTPResponse(
                status: status, headers: [("content-type", "text/plain; charset=utf-8")],
                body: Array(reason.utf8)), on: stream)
    }

    /// Submits `response` as HEADERS (`:status`, the handler's fields, `content-length`) plus DATA frames
    /// read from a copy of the body. A status outside 200…999 becomes an empty 500.
    func submit(_ response: HTTPResponse, on stream: StreamRecord) {
        guard let session = nghttpSession else { return }
        var status = response.status
        var body = response.body
        if !(200...999).contains(status) {
            status = 500
            body = []
        }
        var fields: [(String, String)] = [(":status", String(status))]
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            if H2Session.isSendable(name: lowered, value: value) { fields.append((lowered, value)) }
        }
        fields.append(("content-length", String(body.count)))
        // A response to HEAD carries the length but no content (RFC 9110 §9.3.2).
        stream.responseBody = stream.method == "HEAD" ? [] : body
        stream.responseOffset = 0
        let hasBody = !stream.responseBody.isEmpty
        let result = H2Session.withNameValues(fields) { fields, count -> Int32 in
            guard hasBody else { return nghttp2_submit_response(session, stream.id, fields, count, nil) }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: h2ReadResponseBody)
            return nghttp2_submit_response(session, stream.id, fields, count, &provider)
        }
        stream.responded = result == 0
    }

    private func refuse(_ stream: StreamRecord) {
        stream.answeredEarly = true
        guard let session = nghttpSession else { return }
        _ = nghttp2_submit_rst_stream(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_REFUSED_STREAM.rawValue)
    }

    private func sendGoAway(lastStreamID: Int32) {
        guard goAwayLastStreamID == nil, let session = nghttpSession else { return }
        goAwayLastStreamID = lastStreamID
        _ = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }

    /// Whether a handler-supplied field may go on the wire: valid per nghttp2's RFC 9113 §8.2.1 checks, not a
    /// pseudo-header, not connection-specific (§8.2.2), and not `content-length`, which the server sets.
    private static func isSendable(name: String, value: String) -> Bool {
        let forbidden: Set<String> = [
            "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
            "content-length",
        ]
        guard !name.isEmpty, !name.hasPrefix(":"), !forbidden.contains(name) else { return false }
        var nameBytes = Array(name.utf8)
        var valueBytes = Array(value.utf8)
        return nghttp2_check_header_name(&nameBytes, nameBytes.count) != 0
            && nghttp2_check_header_value(&valueBytes, valueBytes.count) != 0
    }

    /// Lays the fields out in one buffer and calls `body` with `nghttp2_nv`s pointing into it (nghttp2
    /// copies them during the submit call).
    private static func withNameValues(
        _ fields: [(String, String)],
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32
    ) -> Int32 {
        var storage: [UInt8] = []
        var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        for (name, value) in fields {
            let nameStart = storage.count
            storage.append(contentsOf: name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: value.utf8)
            spans.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart))
        }
        return storage.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            let nameValues = spans.map { span in
                nghttp2_nv(
                    name: base + span.name, value: base + span.value, namelen: span.nameLength,
                    valuelen: span.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nameValues.withUnsafeBufferPointer { list in
                guard let first = list.baseAddress else { return -1 }
                return body(first, list.count)
            }
        }
    }
}
