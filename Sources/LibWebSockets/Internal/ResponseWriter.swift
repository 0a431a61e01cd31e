import CLWS
import RingerHTTP

/// Writes one HTTP response across as many `LWS_CALLBACK_HTTP_WRITEABLE` callbacks as it needs:
/// the header block first, then the body in chunks that fit the HTTP/2 frame size and the
/// peer's flow-control window. Service thread only.
struct ResponseWriter {
    /// Largest piece of a raw-socket answer per `lws_write`: under lws' send limit (``ServerEngine/sendLimitBytes``),
    /// so no piece is held back for later, which the raw role drops when the connection closes.
    static let rawPieceBytes = 256
    /// Largest body chunk per callback: the default HTTP/2 SETTINGS_MAX_FRAME_SIZE (RFC 9113 §6.5.2).
    static let chunkSize = 16 * 1024

    /// What the caller should do after a writable callback.
    enum Outcome {
        /// More to write: request another writable callback.
        case more
        /// The response is complete.
        case finished
        /// Writing failed: close the connection or stream.
        case failed
    }

    private let response: HTTPResponse
    private let isHTTP2: Bool
    private let omitsBody: Bool
    /// HTTP/1 only: announce `connection: close`; the caller closes after the response.
    private(set) var closesConnection: Bool
    /// Writes the whole response in one `LWS_WRITE_RAW` on a connection lws handed to its raw-socket role.
    private let rawSocket: Bool
    private var headersSent = false
    private var offset = 0

    /// - Parameters:
    ///   - response: What to send.
    ///   - isHTTP2: Whether the wsi is an HTTP/2 stream.
    ///   - isHead: A HEAD request gets the headers only (RFC 9110 §9.3.2).
    ///   - closesConnection: HTTP/1: send `connection: close` (the request left the stream unusable).
    ///   - rawSocket: The connection is in lws' raw-socket role (a method lws did not know): headers and body
    ///     go out together as raw bytes, in one call.
    ///
    /// HTTP/1 status lines are written here rather than by `lws_add_http_header_status`, whose reason phrase is
    /// empty for 201, 204 and most others (RFC 9112 §4 allows that, but h2load and other clients count such
    /// responses as failures); they always say `HTTP/1.1` (RFC 9110 §6.2: the highest minor version the server
    /// supports), which also keeps the upgrade refusals of `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE` from saying the
    /// `HTTP/1.0` lws records then.
    init(response: HTTPResponse, isHTTP2: Bool, isHead: Bool, closesConnection: Bool, rawSocket: Bool = false) {
        self.response = response
        self.isHTTP2 = isHTTP2 && !rawSocket
        self.omitsBody = isHead || response.body.isEmpty
        self.closesConnection = closesConnection && !self.isHTTP2
        self.rawSocket = rawSocket
    }

    /// HTTP/1: the connection will close after this response; says so with `connection: close` (RFC 9112 §9.6)
    /// unless the header block is already out.
    mutating func announceClose() {
        if !isHTTP2 { closesConnection = true }
    }

    /// Writes the next piece: the header block (on HTTP/1 with the whole body behind it, when it fits), or one body
    /// chunk.
    mutating func writeNext(on wsi: OpaquePointer, using scratch: ScratchBuffer) -> Outcome {
        if !headersSent {
            guard let bodyIncluded = writeHeaders(on: wsi, using: scratch) else { return .failed }
            headersSent = true
            return omitsBody || bodyIncluded ? .finished : .more
        }
        var count = min(Self.chunkSize, response.body.count - offset)
        let allowance = lws_get_peer_write_allowance(wsi)
        if allowance >= 0 { count = min(count, Int(allowance)) }
        guard count > 0 else { return .more }  // HTTP/2 window exhausted: lws calls again after WINDOW_UPDATE
        let isLast = offset + count == response.body.count
        let mode = isLast ? LWS_WRITE_HTTP_FINAL.rawValue : LWS_WRITE_HTTP.rawValue
        guard scratch.write(wsi, response.body[offset..<(offset + count)], mode: mode) >= Int32(count) else {
            return .failed
        }
        offset += count
        return isLast ? .finished : .more
    }

    /// Builds and writes status, the caller's headers and `content-length` in one header block. On HTTP/1 a body that
    /// fits behind the block goes in the same write: one `send` and no second writable callback per answer (issue
    /// 33). lws writes an HTTP/1 header block as raw bytes and counts no body bytes there (`rops_write_role_protocol_h1`
    /// in lws 4.1), so nothing of its own is skipped; HTTP/2 frames the two apart.
    /// - Returns: whether the body went with it; nil when writing failed.
    private func writeHeaders(on wsi: OpaquePointer, using scratch: ScratchBuffer) -> Bool? {
        let start = scratch.payload
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let end = scratch.end
        guard (100...999).contains(response.status) else { return nil }
        if isHTTP2 {
            guard lws_add_http_header_status(wsi, UInt32(response.status), &cursor, end) == 0 else { return nil }
        } else {
            // lws_add_http_header_by_name with a NULL name emits the value as a bare line.
            let line = Array("HTTP/1.1 \(response.status) \(Self.reasonPhrase(response.status))".utf8)
            guard lws_add_http_header_by_name(wsi, nil, line, Int32(line.count), &cursor, end) == 0 else {
                return nil
            }
        }
        var handlerSentDate = false
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            handlerSentDate = handlerSentDate || lowered == "date"
            // content-length is ours; CR or LF would let a value inject headers (RFC 9110 §5.5).
            guard lowered != "content-length", !lowered.isEmpty,
                !(name + value).unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" })
            else { continue }
            guard add(name: lowered, value: value, wsi: wsi, cursor: &cursor, end: end) else { return nil }
        }
        // RFC 9110 §6.6.1; a handler's own date wins.
        if !handlerSentDate, !add(name: "date", value: HTTPDate.now(), wsi: wsi, cursor: &cursor, end: end) {
            return nil
        }
        if closesConnection, !add(name: "connection", value: "close", wsi: wsi, cursor: &cursor, end: end) {
            return nil
        }
        // On a raw socket lws would count the whole write (head included) against a content length it recorded
        // and cut it short: the header goes in as text there.
        let lengthAdded =
            rawSocket
            ? add(name: "content-length", value: String(response.body.count), wsi: wsi, cursor: &cursor, end: end)
            : lws_add_http_header_content_length(wsi, lws_filepos_t(response.body.count), &cursor, end) == 0
        guard lengthAdded, lws_finalize_http_header(wsi, &cursor, end) == 0, let cursor else { return nil }
        if rawSocket {
            // lws sends at most the protocol's buffer size (plus LWS_PRE) per write and the raw role drops what it
            // kept back when the connection closes, so the answer goes out in pieces that each fit.
            let bytes = Array(UnsafeBufferPointer(start: start, count: cursor - start)) + response.body
            var offset = 0
            while offset < bytes.count {
                let count = min(Self.rawPieceBytes, bytes.count - offset)
                // LWS_WRITE_RAW is a macro for LWS_WRITE_HTTP, which the raw-socket role writes as it is.
                guard
                    scratch.write(wsi, bytes[offset..<(offset + count)], mode: LWS_WRITE_HTTP.rawValue) >= Int32(count)
                else { return nil }
                offset += count
            }
            // Said as not included, as before this write carried bodies too: the caller then ends the connection at
            // once and lws flushes what it holds before closing.
            return false
        }
        var mode = LWS_WRITE_HTTP_HEADERS.rawValue
        // HTTP/2: with no DATA to follow, END_STREAM rides on the HEADERS frame (RFC 9113 §8.1).
        if omitsBody && isHTTP2 { mode |= LWS_WRITE_H2_STREAM_END.rawValue }
        var length = cursor - start
        let bodyIncluded = !isHTTP2 && !omitsBody && response.body.count <= end - cursor
        if bodyIncluded {
            response.body.withUnsafeBufferPointer { body in
                if let address = body.baseAddress { cursor.update(from: address, count: body.count) }
            }
            length += response.body.count
        }
        guard lws_write(wsi, start, length, lws_write_protocol(rawValue: mode)) >= Int32(length) else { return nil }
        return bodyIncluded
    }

    /// The reason phrase of `status` (RFC 9110 §15, RFC 6585); clients must not rely on it, but an empty one
    /// counts as a failure in h2load and some proxies, so an unlisted status gets its class's name.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default:
            switch status / 100 {
            case 1: "Informational"
            case 2: "Success"
            case 3: "Redirection"
            case 4: "Client Error"
            default: "Server Error"
            }
        }
    }

    /// Appends one `name: value` header (lws wants the colon in the HTTP/1 name and drops it for HTTP/2).
    private func add(
        name: String, value: String, wsi: OpaquePointer, cursor: inout UnsafeMutablePointer<UInt8>?,
        end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        let valueBytes = Array(value.utf8)
        return (name + ":").withCString { cName in
            cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 2) { namePointer in
                lws_add_http_header_by_name(wsi, namePointer, valueBytes, Int32(valueBytes.count), &cursor, end) == 0
            }
        }
    }
}
