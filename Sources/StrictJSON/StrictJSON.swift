import CJansson

/// The one check Foundation's `JSONDecoder` does not make: that no JSON object holds a name twice. RFC 8259 §4 says
/// names "SHOULD be unique" and leaves duplicates to each parser, which is how two readers of one text disagree:
/// `JSONDecoder` keeps the first of two `sub` claims while PyJWT keeps the last, and `{"callee":"carol","callee":"bob"}`
/// rang carol while a logging proxy saw bob (issue 26). RFC 7519 §4 requires a JWT with duplicate claim names to be
/// rejected (or the last taken); Ringer rejects them in tokens and in request bodies alike.
///
/// The parse is Jansson's (`json_loadb` with `JSON_REJECT_DUPLICATES`, Debian's libjansson), run beside the decoder that
/// builds the value; any other fault of the text is left for that decoder to report in its own words.
public enum StrictJSON {
    /// The first name an object of `bytes` repeats, or nil when there is none (or the text is not JSON at all).
    /// - Parameter bytes: UTF-8 JSON text of any top-level value.
    /// - Returns: The repeated name as the text writes it the second time (escapes kept), for an error message; nil
    ///   when every object's names are unique (after unescaping: `"a"` and `"\u0061"` are one name).
    public static func duplicateName(in bytes: some Collection<UInt8>) -> String? {
        var error = json_error_t()
        let flags = CJANSSON_REJECT_DUPLICATES | CJANSSON_DECODE_ANY | CJANSSON_ALLOW_NUL
        let value: UnsafeMutablePointer<json_t>? = bytes.withContiguousStorageIfAvailable { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, flags, &error) }
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, flags, &error) }
        }
        if let value {
            json_decref(value)
            return nil
        }
        guard CJansson_isDuplicateKey(&error) != 0 else { return nil }
        // Jansson's text reads `duplicate object key near '"callee"'`: the name sits between the quotes.
        let text = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let open = text.firstIndex(of: "\""), let close = text.lastIndex(of: "\""), open < close else {
            return ""
        }
        return String(text[text.index(after: open)..<close])
    }
}
