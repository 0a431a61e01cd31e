import CLWS
import RingerHTTP

/// Reads the request head that lws parsed into the wsi's header table (`lws_hdr_*`).
/// Service thread only, inside a callback where the header table is still attached.
enum RequestReader {
    /// Method tokens lws fills for HTTP/1 (and mirrors from `:path` for HTTP/2), with their names.
    private static let methodTokens: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"),
        (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_CONNECT, "CONNECT"),
    ]

    /// Every header token lws knows, with its lower-case name. Pseudo-headers (":path"),
    /// method lines ("get ") and internal tokens are left out: their names do not end in ':'.
    private static let headerTokens: [(lws_token_indexes, String)] = {
        (0..<WSI_TOKEN_COUNT.rawValue).compactMap { raw in
            let token = lws_token_indexes(rawValue: raw)
            guard let cName = lws_token_to_string(token) else { return nil }
            let name = String(cString: cName)
            guard name.count > 1, name.hasSuffix(":"), !name.hasPrefix(":") else { return nil }
            return (token, String(name.dropLast()))
        }
    }()

    /// Builds the request without its body.
    /// - Parameters:
    ///   - wsi: The connection or HTTP/2 stream.
    ///   - extraHeaders: Lower-case names of unknown headers to capture (HTTP/1 only: lws 4.1).
    static func head(of wsi: OpaquePointer, extraHeaders: [String]) -> HTTPRequest {
        let isHTTP2 = isHTTP2Stream(wsi)
        var method = "GET"
        var path = "/"
        if lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COLON_METHOD) > 0 {
            method = copy(wsi, WSI_TOKEN_HTTP_COLON_METHOD)?.uppercased() ?? method
            path = copy(wsi, WSI_TOKEN_HTTP_COLON_PATH) ?? path
        } else if let (token, name) = methodTokens.first(where: { lws_hdr_total_length(wsi, $0.0) > 0 }) {
            method = name
            path = copy(wsi, token) ?? path
        }
        var headers: [String: String] = [:]
        for (token, name) in headerTokens {
            if let value = copy(wsi, token) { headers[name] = value }
        }
        if headers["host"] == nil, let authority = copy(wsi, WSI_TOKEN_HTTP_COLON_AUTHORITY) {
            headers["host"] = authority
        }
        // An `Upgrade: h2c` the server ignored (ServerEngine.onConfirmUpgrade) was not asked for as far as it goes.
        if headers["upgrade"] == "" { headers["upgrade"] = nil }
        for name in extraHeaders where headers[name] == nil {
            if let value = customHeader(wsi, name: name) { headers[name] = value }
        }
        return HTTPRequest(
            method: method, path: path, query: query(of: wsi), headers: headers,
            httpVersion: isHTTP2 ? 2 : 1, remoteAddress: peerAddress(of: wsi))
    }

    /// Whether `wsi` is a stream of an HTTP/2 connection, whose answer must go out as HTTP/2 frames. Told by the
    /// connection, not by the head: a stream can carry an HTTP/1 head with no `:method` (lws moves the head of an
    /// `h2c` upgrade to stream 1, RFC 7540 §3.2), and a response framed as HTTP/1 on such a stream crashed lws.
    static func isHTTP2Stream(_ wsi: OpaquePointer) -> Bool {
        lws_get_network_wsi(wsi) != wsi || lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COLON_METHOD) > 0
    }

    /// The peer of the wsi's network connection (`lws_get_peer_simple` asks the socket, also for an HTTP/2
    /// stream), as the socket reports it: `::ffff:`-mapped on a dual-stack listener.
    private static func peerAddress(of wsi: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return nil }
        let address = text(buffer[...])
        return address.isEmpty ? nil : address
    }

    /// The size of the request head as Ringer counts it against ``WebServer/Configuration/maxRequestHeaderBytes``:
    /// the method and target (path and query) plus each header lws recognises as `name: value` CRLF. Headers lws does
    /// not recognise are not counted (lws 4.1.6 offers no way to list them); they only fill its header buffer.
    static func headBytes(of wsi: OpaquePointer) -> Int {
        var total = 0
        for (token, name) in methodTokens where lws_hdr_total_length(wsi, token) > 0 {
            total += name.utf8.count + 1 + Int(lws_hdr_total_length(wsi, token)) + " HTTP/1.1\r\n".utf8.count
        }
        total += Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        for (token, name) in headerTokens {
            let length = Int(lws_hdr_total_length(wsi, token))
            if length > 0 { total += name.utf8.count + 2 + length + 2 }
        }
        return total
    }

    /// Whether lws kept an HTTP/1 request target whole. It decodes `%00` into the path (which then ends at the NUL
    /// for anyone reading it as text) and ends the request line at a decoded `%0A` or `%0D`, leaving no HTTP version
    /// behind it; both are refused rather than served under a cut path.
    static func targetIsWhole(of wsi: OpaquePointer, request: HTTPRequest) -> Bool {
        guard request.httpVersion == 1 else { return true }
        guard let (token, _) = methodTokens.first(where: { lws_hdr_total_length(wsi, $0.0) > 0 }) else { return true }
        if Int(lws_hdr_total_length(wsi, token)) != request.path.utf8.count { return false }
        return lws_hdr_total_length(wsi, WSI_TOKEN_HTTP) > 0
    }

    /// Whether any header field value lws kept holds a control character: NUL, a C0 byte other than horizontal tab,
    /// or DEL (RFC 9110 §5.5 allows only visible characters, spaces and tabs). lws 4.1.6 keeps such bytes, and
    /// ``copy(_:_:)`` reads a value only up to a NUL, so `Idempotency-Key: a<NUL>b` and `a<NUL>c` would read alike.
    /// - Parameters:
    ///   - wsi: The connection or stream, its header table attached.
    ///   - extraHeaders: Lower-case names of unknown headers the server reads, checked too.
    ///
    /// lws does not count a NUL in a value's length, so one that ends a value (`application/json<NUL>`) is invisible
    /// here and to every reader: the value reads whole without it. One inside a value is seen, since the copy stops
    /// there short of the length.
    static func hasControlCharacterInValue(_ wsi: OpaquePointer, extraHeaders: [String]) -> Bool {
        for (token, _) in headerTokens {
            guard let bytes = tokenBytes(wsi, token) else { continue }
            // The `Upgrade: h2c` that ServerEngine.onConfirmUpgrade cleared (lws refuses a client's own value that
            // starts with NUL as an unknown upgrade before any callback).
            if token == WSI_TOKEN_UPGRADE && bytes.first == 0 { continue }
            if bytes.contains(where: isControl) { return true }
        }
        return extraHeaders.contains { customBytes(wsi, name: $0)?.contains(where: isControl) == true }
    }

    /// Whether a message-framing header came with whitespace between its name and the colon (`Transfer-Encoding :
    /// chunked`). RFC 9112 §5.1 requires a 400: lws takes such a line for an unknown header and reads the body by
    /// `Content-Length`, while a proxy in front may have framed it by the other header (request smuggling). Only the
    /// framing headers are looked for: lws 4.1.6 cannot list the unknown headers it kept.
    static func hasSpaceBeforeColonInFramingHeader(_ wsi: OpaquePointer) -> Bool {
        for name in ["transfer-encoding", "content-length"] {
            for gap in [" ", "\t", "  "] {
                let key = name + gap + ":"
                if lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)) >= 0 { return true }
            }
        }
        return false
    }

    /// NUL to US except HTAB, and DEL.
    private static func isControl(_ byte: CChar) -> Bool {
        let value = UInt8(bitPattern: byte)
        return (value < 0x20 && value != 0x09) || value == 0x7F
    }

    /// The declared `content-length`, if any and valid.
    static func contentLength(of wsi: OpaquePointer) -> Int? {
        copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int(trimmed($0)) }
    }

    /// Whether a `content-length` is present but not 1*DIGIT (RFC 9110 §8.6): `-5`, `+5`, `abc`, `5 5`. Swift's
    /// `Int` would take a sign, and lws reads the value with its own lenient parser.
    static func hasInvalidContentLength(_ wsi: OpaquePointer) -> Bool {
        guard let value = copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).map(trimmed) else { return false }
        return value.isEmpty || value.utf8.count > 18 || !value.utf8.allSatisfy { (48...57).contains($0) }
    }

    /// The value of a known header token, or nil when absent.
    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        tokenBytes(wsi, token).map(text)
    }

    /// An unknown ("custom") header through `lws_hdr_custom_copy`, whose name includes the colon.
    private static func customHeader(_ wsi: OpaquePointer, name: String) -> String? {
        customBytes(wsi, name: name).map { trimmed(text($0)) }
    }

    /// A known header's value as lws copies it: the `lws_hdr_total_length` bytes (a NUL inside is kept, one ending
    /// the value is not counted by lws), or nil when the header is absent or empty.
    private static func tokenBytes(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> ArraySlice<CChar>? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return buffer.prefix(length)
    }

    /// An unknown header's value as `lws_hdr_custom_copy` copies it (the key is the lower-case name and the colon),
    /// or nil when absent.
    private static func customBytes(_ wsi: OpaquePointer, name: String) -> ArraySlice<CChar>? {
        let key = name + ":"
        let keyLength = Int32(key.utf8.count)
        let length = Int(lws_hdr_custom_length(wsi, key, keyLength))
        guard length >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), key, keyLength) >= 0 else { return nil }
        return buffer.prefix(length)
    }

    /// A value's bytes as text, up to a NUL, as every reader of a C string reads it.
    private static func text(_ bytes: ArraySlice<CChar>) -> String {
        String(decoding: bytes.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query: lws splits it at `&`/`;` into fragments of `WSI_TOKEN_HTTP_URI_ARGS`, already
    /// percent-decoded, each `name=value`. An empty fragment (`?&`) is skipped and an empty name (`?=x`) kept as
    /// `""`, which no route reads. A decoded NUL never gets here: lws 4.1.6 fails the whole head on one in the query.
    private static func query(of wsi: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        // lws_hdr_copy_fragment fails past the last fragment; lws caps the fragment count anyway.
        for index: Int32 in 0..<1024 {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            var buffer = [CChar](repeating: 0, count: length + 1)
            guard lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0
            else { break }
            let pair = text(buffer[...])
            if !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
        }
        return query
    }

    /// `text` without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    private static func trimmed(_ text: String) -> String {
        var value = Substring(text)
        while let first = value.first, first == " " || first == "\t" { value = value.dropFirst() }
        while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
        return String(value)
    }
}
