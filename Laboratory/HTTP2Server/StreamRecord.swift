import RingerHTTP

/// One HTTP/2 request stream as its connection thread assembles and answers it.
///
/// Thread-safety: owned by one connection thread; only the handler's result crosses threads (via the mailbox).
final class StreamRecord {
    let id: Int32
    var method = ""
    /// The raw `:path`, query included.
    var target = ""
    var authority: String?
    var headers: [String: String] = [:]
    /// Header list size so far, counted as SETTINGS_MAX_HEADER_LIST_SIZE does (RFC 9113 §6.5.2).
    var headerBytes = 0
    var headerListTooLarge = false
    /// True once the request HEADERS frame (not trailers) ended.
    var headersComplete = false
    var body: [UInt8] = []
    /// The server already answered (413, 431 or a refusal): ignore further input, never dispatch.
    var answeredEarly = false
    /// The handler runs or ran; its task is cancelled if the stream closes first.
    var task: Task<Void, Never>?
    /// A response was submitted to nghttp2.
    var responded = false
    /// The body nghttp2's data provider reads from, and how far it got.
    var responseBody: [UInt8] = []
    var responseOffset = 0

    init(id: Int32) {
        self.id = id
    }

    /// Adds one received header field; pseudo-headers fill the request line. Repeated fields are joined with
    /// ", ", except `cookie`, whose crumbs HTTP/2 splits and which RFC 9113 §8.2.3 rejoins with "; ".
    func add(name: String, value: String) {
        switch name {
        case ":method": method = value
        case ":path": target = value
        case ":authority": authority = value
        case ":scheme", ":protocol": break
        default:
            if let existing = headers[name] {
                headers[name] = existing + (name == "cookie" ? "; " : ", ") + value
            } else {
                headers[name] = value
            }
        }
    }

    /// The request handed to the handler. `:authority` doubles as `host` when no `host` field came.
    /// - Parameter clientCertificate: The connection's verified client certificate, if any.
    func makeRequest(clientCertificate: HTTPRequest.ClientCertificate?) -> HTTPRequest {
        let (path, query) = RequestTarget.split(target)
        var fields = headers
        if fields["host"] == nil, let authority { fields["host"] = authority }
        return HTTPRequest(
            method: method, path: path, query: query, headers: fields, body: body, httpVersion: 2,
            clientCertificate: clientCertificate)
    }
}
