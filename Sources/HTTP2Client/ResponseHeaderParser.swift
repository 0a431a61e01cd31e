/// Collects the header lines libcurl passes to `CURLOPT_HEADERFUNCTION`, keeping only the last response.
///
/// libcurl delivers every header block it sees: interim 1xx responses, the final response and trailers,
/// each block starting with a status line (`HTTP/2 200` for HTTP/2, which has no reason phrase, or
/// `HTTP/1.1 100 Continue`). A status line therefore starts over.
struct ResponseHeaderParser {
    /// Status code of the last status line seen.
    private(set) var status: Int?
    /// Fields of the last response, keyed by lowercased name (RFC 9110 §5.1: names are case-insensitive).
    private(set) var fields: [String: String] = [:]
    private var lastName: String?

    /// Feeds one header line, with or without its CRLF.
    mutating func consume(_ rawLine: String) {
        var line = Substring(rawLine)
        // "\r\n" is a single Character in Swift; isNewline covers it as well as a lone CR or LF.
        while let last = line.last, last.isNewline {
            line.removeLast()
        }
        guard !line.isEmpty else { return }

        if line.hasPrefix("HTTP/") {
            // "HTTP/2 200", "HTTP/1.1 404 Not Found": the code is the second space-separated part.
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            status = parts.count >= 2 ? Int(parts[1]) : nil
            fields = [:]
            lastName = nil
            return
        }
        if let first = line.first, first == " " || first == "\t" {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous field's value.
            if let lastName, let previous = fields[lastName] {
                fields[lastName] = previous + " " + Self.trim(line)
            }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = Self.trim(line[..<colon]).lowercased()
        guard !name.isEmpty else { return }
        let value = Self.trim(line[line.index(after: colon)...])
        if let existing = fields[name] {
            // RFC 9110 §5.3: repeated fields combine into one comma-separated list.
            fields[name] = existing + ", " + value
        } else {
            fields[name] = value
        }
        lastName = name
    }

    /// Strips optional whitespace (space, tab) at both ends (RFC 9110 §5.6.3).
    private static func trim(_ text: Substring) -> String {
        var start = text.startIndex
        var end = text.endIndex
        while start < end, text[start] == " " || text[start] == "\t" {
            start = text.index(after: start)
        }
        while end > start, text[text.index(before: end)] == " " || text[text.index(before: end)] == "\t" {
            end = text.index(before: end)
        }
        return String(text[start..<end])
    }
}
