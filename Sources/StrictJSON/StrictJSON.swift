import CJansson

/// What Foundation's `JSONDecoder` lets through but a second reader of the same text could read otherwise: a name
/// repeated in one object, a number no double holds, a NUL in a name, a lone surrogate. RFC 8259
/// §4 says names "SHOULD be unique" and leaves duplicates to each parser, §6 and §8.2 leave numbers past a
/// reader's range and unpaired surrogates to it too, which is how two readers of one text disagree: `JSONDecoder`
/// keeps the first of two `sub` claims while PyJWT keeps the last, and `{"callee":"carol","callee":"bob"}` rang carol
/// while a logging proxy saw bob (issue 26). RFC 7519 §4 requires a JWT with duplicate claim names to be rejected
/// (or the last taken); Ringer rejects such text in tokens and in request bodies alike.
///
/// The check is Jansson's strict parse (`json_loadb` with `JSON_REJECT_DUPLICATES`, Debian's libjansson), run beside
/// the decoder that builds the value: any text Jansson will not read the same way is refused, so a repeated name
/// cannot hide behind another construct Jansson stops at first (a number past 64 bits before the duplicate).
public enum StrictJSON {
    /// Why a text that parsed as JSON is still refused.
    public enum Refusal: Equatable, Sendable {
        /// An object names a member twice; the name as the text writes it the second time (escapes kept).
        case repeatedName(String)
        /// Something readers do not agree on (a number out of range, a NUL in a name, a lone surrogate, invalid
        /// JSON): Jansson's message, which quotes at most a few characters of the text near the fault.
        case ambiguous(String)
    }

    /// Why `bytes` must be refused, or nil when every reader reads it alike.
    /// - Parameter bytes: UTF-8 JSON text of any top-level value.
    /// - Returns: The refusal, or nil.
    public static func refusal(of bytes: some Collection<UInt8>) -> Refusal? {
        var error = json_error_t()
        // Integers as doubles, as JSONDecoder reads any number it is not asked for as an integer: an integer past 64
        // bits is a double to both, and only one past a double's range is out of every reader's.
        let flags = CJANSSON_REJECT_DUPLICATES | CJANSSON_DECODE_ANY | CJANSSON_ALLOW_NUL | CJANSSON_DECODE_INT_AS_REAL
        let value: UnsafeMutablePointer<json_t>? =
            bytes.withContiguousStorageIfAvailable { buffer in
                buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, flags, &error) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, flags, &error) }
            }
        if let value {
            json_decref(value)
            return nil
        }
        let text = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard CJansson_isDuplicateKey(&error) != 0 else { return .ambiguous(text) }
        // Jansson's text reads `duplicate object key near '"callee"'`: the name sits between the quotes.
        guard let open = text.firstIndex(of: "\""), let close = text.lastIndex(of: "\""), open < close else {
            return .repeatedName("")
        }
        return .repeatedName(String(text[text.index(after: open)..<close]))
    }
}
