import CNGHTTP2

/// Builds a request's HTTP/2 header list for `nghttp2_submit_request`, which copies it: the pseudo-headers
/// (RFC 9113 §8.3.1), the caller's fields with their names lowercased (RFC 9113 §8.2.1), then `user-agent` unless
/// the caller set one, and `content-length` for a body or a POST or PUT.
enum HeaderBlock {
    /// Calls `body` with the `nghttp2_nv` list, valid only during the call.
    static func withFields<Result>(
        request: HTTP2Request, target: RequestTarget, userAgent: String,
        _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result
    ) -> Result {
        let hasUserAgent = request.headers.contains { ASCII.equals($0.name, lowercased: "user-agent") }
        let contentLength =
            !request.body.isEmpty || request.method == "POST" || request.method == "PUT"
            ? String(request.body.count) : nil
        // Names and values are copied into one scratch buffer (on the stack when small), since this runs for
        // every request on the loop thread: the names of the pseudo-headers and of the two added fields take
        // 53 bytes.
        var byteCount = 53 + request.method.utf8.count + target.scheme.utf8.count + target.authority.utf8.count
        byteCount += target.path.utf8.count + userAgent.utf8.count + (contentLength?.utf8.count ?? 0)
        for header in request.headers { byteCount += header.name.utf8.count + header.value.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: 6 + request.headers.count) { fields in
                var used = 0
                var count = 0
                // The fixed names are string literals: their bytes are copied as directly as a variable's.
                func copy(_ text: String) -> Range<Int> {
                    let start = used
                    used = UnsafeMutableBufferPointer(rebasing: bytes[start...]).initialize(from: text.utf8).1 + start
                    return start..<used
                }
                func add(_ name: Range<Int>, _ value: Range<Int>) {
                    let base = bytes.baseAddress!
                    fields.initializeElement(
                        at: count,
                        to: nghttp2_nv(
                            name: base + name.lowerBound, value: base + value.lowerBound,
                            namelen: name.count, valuelen: value.count,
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                    count += 1
                }
                add(copy(":method"), copy(request.method))
                add(copy(":scheme"), copy(target.scheme))
                add(copy(":authority"), copy(target.authority))
                add(copy(":path"), copy(target.path))
                for header in request.headers {
                    let name = copy(header.name)
                    for index in name { bytes[index] = ASCII.lowercased(bytes[index]) }
                    add(name, copy(header.value))
                }
                if !hasUserAgent { add(copy("user-agent"), copy(userAgent)) }
                if let contentLength { add(copy("content-length"), copy(contentLength)) }
                return body(UnsafeBufferPointer(rebasing: fields[..<count]))
            }
        }
    }
}
