/// Splits and decodes a request's `:path` into the path and query parameters.
enum RequestTarget {
    /// Splits `target` at the first `?`.
    /// - Parameter target: The raw `:path`, e.g. `/3/device/ab%20c?x=1&y=a+b`.
    /// - Returns: The percent-decoded path and the decoded query (`+` as space; a repeated name keeps its last value).
    static func split(_ target: String) -> (path: String, query: [String: String]) {
        let bytes = Array(target.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else {
            return (decode(bytes[...], plusIsSpace: false), [:])
        }
        var query: [String: String] = [:]
        for pair in bytes[(mark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                query[decode(pair[..<equals], plusIsSpace: true)] = decode(pair[(equals + 1)...], plusIsSpace: true)
            } else {
                query[decode(pair, plusIsSpace: true)] = ""
            }
        }
        return (decode(bytes[..<mark], plusIsSpace: false), query)
    }

    /// Decodes `%XX` escapes (RFC 3986 §2.1); a malformed escape stays as written, invalid UTF-8 becomes U+FFFD.
    static func decode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
                continue
            }
            output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
