import CNGHTTP2

/// Builds a request's HTTP/2 header list for `nghttp2_submit_request`, which copies it: the pseudo-headers
/// (RFC 9113 §8.3.1), `user-agent`, `content-length` for a body, then the caller's fields with their names
/// lowercased (RFC 9113 §8.2.1).
enum HeaderBlock {
    /// Calls `body` with the `nghttp2_nv` list, valid only during the call.
    static func withFields<Result>(
        request: HTTP2Request, target: RequestTarget, userAgent: String,
        _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result
    ) -> Result {
        var bytes: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        bytes.reserveCapacity(256 + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
        func add(_ name: some Sequence<UInt8>, _ value: some Sequence<UInt8>) {
            let nameStart = bytes.count
            bytes.append(contentsOf: name)
            let valueStart = bytes.count
            bytes.append(contentsOf: value)
            spans.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        add(":method".utf8, request.method.utf8)
        add(":scheme".utf8, target.scheme.utf8)
        add(":authority".utf8, target.authority.utf8)
        add(":path".utf8, target.path.utf8)
        var hasUserAgent = false
        for header in request.headers {
            if ASCII.equals(header.name, lowercased: "user-agent") { hasUserAgent = true }
            add(header.name.utf8.lazy.map(ASCII.lowercased), header.value.utf8)
        }
        if !hasUserAgent { add("user-agent".utf8, userAgent.utf8) }
        if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
            add("content-length".utf8, String(request.body.count).utf8)
        }
        return bytes.withUnsafeMutableBufferPointer { storage in
            let base = storage.baseAddress!
            let fields = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return fields.withUnsafeBufferPointer(body)
        }
    }
}
