import Foundation

/// A request waiting to be (re)sent, with what its earlier sends cost.
struct Job {
    let pending: PendingResponse
    /// Sends so far plus one: 1 for the first send.
    var attempt = 1
    /// Resends after a connection failure, bounded by ``HTTP2Request/connectionRetries``.
    var connectionRetries = 0
    /// Resends after the server refused the stream unprocessed (REFUSED_STREAM, above a GOAWAY's
    /// last-stream-id, or never written), bounded by ``maxRefusals``.
    var refusals = 0
    /// Already counted in ``HTTP2Client/Statistics/reconnectsDelayed``.
    var wasHeld = false
    /// Some attempt reached the wire (its HEADERS were written): the server may have seen the request.
    var wasSent = false

    /// Refused streams are safe to resend (RFC 9113 §8.7), but a server that refuses everything must not
    /// keep a request bouncing until its deadline.
    static let maxRefusals = 8
}

/// How a stream ended, as the loop needs it.
enum StreamEnd {
    /// A complete response.
    case response(HTTP2Response)
    /// The server did not process the request (RFC 9113 §8.7): resend it, on another connection if this one is
    /// going away.
    case refused
    /// The stream or its connection failed after the request may have been processed.
    /// `connectionFailure`: the failure is the connection's or a reset by the server (resendable within
    /// ``HTTP2Request/connectionRetries``), not the response's own (a body over the limit).
    case failed(HTTP2ClientError, connectionFailure: Bool)
}

/// One request in flight on a connection, and its response as it arrives. Loop thread only.
final class ClientStream {
    let job: Job
    /// When it was handed to nghttp2.
    let startedAt = ContinuousClock.now
    /// The first stream of its connection: the response reports one new connection.
    let openedConnection: Bool
    /// Set when nghttp2 wrote its HEADERS: until then nothing of it reached the server.
    var headersSent = false
    /// Why nghttp2 could not send the request's HEADERS, when that is permanent (too large).
    var unsendable: HTTP2ClientError?
    /// Set when END_STREAM arrived from the server.
    var ended = false
    private(set) var status: Int?
    private(set) var headers: [String: String] = [:]
    private(set) var body: [UInt8] = []
    private(set) var bodyTooLarge = false
    private var headerListBytes = 0
    private(set) var headerListTooLarge = false

    /// Largest response header list accepted, bytes as SETTINGS_MAX_HEADER_LIST_SIZE counts them (the client
    /// advertises it); a larger one fails the request rather than exhausting memory.
    static let maxHeaderListBytes = 64 * 1024
    /// How much of the request body nghttp2 has taken.
    var requestBodyOffset = 0

    init(job: Job, openedConnection: Bool) {
        self.job = job
        self.openedConnection = openedConnection
    }

    var pending: PendingResponse { job.pending }

    /// A header block begins: after an interim (1xx) response the final one replaces it (RFC 9110 §15.2).
    func beginHeaderBlock() {
        guard let status, status < 200 else { return }
        self.status = nil
        headers = [:]
        headerListBytes = 0
    }

    /// One decoded response field (nghttp2 checked it and that its name is lowercase). Repeated fields are
    /// joined with ", " (RFC 9110 §5.3); pseudo-headers other than `:status` are dropped.
    /// - Returns: false once the header fields exceed ``maxHeaderListBytes`` (the caller resets the stream).
    func addHeader(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !headerListTooLarge else { return false }
        // Counted as SETTINGS_MAX_HEADER_LIST_SIZE counts: name, value and 32 bytes per field (RFC 9113 §6.5.2).
        headerListBytes += name.count + value.count + 32
        guard headerListBytes <= Self.maxHeaderListBytes else {
            headerListTooLarge = true
            headers = [:]
            return false
        }
        if name.first == UInt8(ascii: ":") {
            if name.count == 7, String(decoding: name, as: UTF8.self) == ":status" {
                status = Int(String(decoding: value, as: UTF8.self))
            }
            return true
        }
        let key = String(decoding: name, as: UTF8.self)
        let text = String(decoding: value, as: UTF8.self)
        if let existing = headers[key] {
            headers[key] = existing + ", " + text
        } else {
            headers[key] = text
        }
        return true
    }

    /// Appends body bytes.
    /// - Returns: false once the body would exceed `limit` bytes (the caller resets the stream).
    func appendBody(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Bool {
        guard !bodyTooLarge else { return false }
        guard body.count + bytes.count <= limit else {
            bodyTooLarge = true
            body = []
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// How the stream ended once nghttp2 closed it with `errorCode`.
    func end(errorCode: UInt32, localPort: Int, maxBodyBytes: Int) -> StreamEnd {
        if headerListTooLarge {
            return .failed(
                .transport(
                    function: "HTTP/2 HEADERS", code: 0,
                    message: "response header list exceeds \(Self.maxHeaderListBytes) bytes"),
                connectionFailure: false)
        }
        if bodyTooLarge {
            return .failed(
                .transport(
                    function: "HTTP/2 DATA", code: 0,
                    message: "response body exceeds maxResponseBodyBytes (\(maxBodyBytes))"),
                connectionFailure: false)
        }
        if errorCode == 0, ended, let status {
            let elapsed = startedAt.duration(to: .now)
            return .response(
                HTTP2Response(
                    status: status, headers: headers, body: body, httpVersion: 2,
                    newConnections: openedConnection ? 1 : 0,
                    elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                    localPort: localPort, attempts: job.attempt))
        }
        if let unsendable {
            return .failed(unsendable, connectionFailure: false)
        }
        if errorCode == HTTP2ErrorCode.refusedStream || !headersSent {
            return .refused
        }
        return .failed(
            .transport(
                function: "RST_STREAM", code: Int(errorCode),
                message: "stream reset: \(HTTP2ErrorCode.name(errorCode))"),
            connectionFailure: true)
    }
}
