/// Collects the header lines libcurl passes to `CURLOPT_HEADERFUNCTION`, keeping only the last response.
///
/// libcurl delivers every header block it sees: interim 1xx responses, the final response and trailers,
/// each block starting with a status line (`HTTP/2 200` for HTTP/2, which has no reason phrase, or
/// `HTTP/1.1 100 Continue`). A status line therefore starts over.
///
/// It works on the line's bytes as libcurl hands them over and makes a `String` only for a field's name and
/// value: the header callback runs for every line of every response, on the loop thread.
struct ResponseHeaderParser {
    /// Status code of the last status line seen.
    private(set) var status: Int?
    /// Fields of the last response, keyed by lowercased name (RFC 9110 §5.1: names are case-insensitive).
    private(set) var fields: [String: String] = [:]
    private var lastName: String?

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let colon = UInt8(ascii: ":")

    /// Feeds one header line, with or without its CRLF.
    mutating func consume(_ line: String) {
        var line = line
        line.withUTF8 { consume(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds one header line's bytes, with or without its CRLF.
    mutating func consume(_ rawLine: UnsafeRawBufferPointer) {
        var end = rawLine.count
        while end > 0, rawLine[end - 1] == UInt8(ascii: "\r") || rawLine[end - 1] == UInt8(ascii: "\n") {
            end -= 1
        }
        guard end > 0 else { return }
        let line = UnsafeRawBufferPointer(rebasing: rawLine[0..<end])

        if line.starts(with: "HTTP/".utf8) {
            // "HTTP/2 200", "HTTP/1.1 404 Not Found": the code is the second space-separated part.
            status = Self.statusCode(line)
            fields = Dictionary(minimumCapacity: 4)  // one allocation for a typical APNs answer's few fields
            lastName = nil
            return
        }
        if line[0] == Self.space || line[0] == Self.tab {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous field's value.
            if let lastName, let previous = fields[lastName] {
                fields[lastName] = previous + " " + Self.trimmed(line, from: 0, to: line.count)
            }
            return
        }
        guard let colon = line.firstIndex(of: Self.colon) else { return }
        let name = Self.trimmed(line, from: 0, to: colon, lowercasing: true)
        guard !name.isEmpty else { return }
        let value = Self.trimmed(line, from: colon + 1, to: line.count)
        if let existing = fields[name] {
            // RFC 9110 §5.3: repeated fields combine into one comma-separated list.
            fields[name] = existing + ", " + value
        } else {
            fields[name] = value
        }
        lastName = name
    }

    /// The digits after the first run of spaces of a status line; nil if there are none or they are not a number.
    private static func statusCode(_ line: UnsafeRawBufferPointer) -> Int? {
        guard var index = line.firstIndex(of: space) else { return nil }
        while index < line.count, line[index] == space {
            index += 1
        }
        var code = 0
        var digits = 0
        while index < line.count, line[index] != space {
            let byte = line[index]
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 else { return nil }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        return digits > 0 ? code : nil
    }

    /// The bytes in `start..<end` without optional whitespace (space, tab) at either end (RFC 9110 §5.6.3),
    /// as a string; names are lowercased (ASCII), as HTTP/2 sends them anyway.
    private static func trimmed(_ line: UnsafeRawBufferPointer, from start: Int, to end: Int,
                                lowercasing: Bool = false) -> String {
        var start = start
        var end = end
        while start < end, line[start] == space || line[start] == tab {
            start += 1
        }
        while end > start, line[end - 1] == space || line[end - 1] == tab {
            end -= 1
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[start..<end])
        guard lowercasing, bytes.contains(where: { ASCII.lowercased($0) != $0 }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: bytes.lazy.map(ASCII.lowercased), as: UTF8.self)
    }
}
