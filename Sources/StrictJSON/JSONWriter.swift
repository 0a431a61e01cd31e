import CJansson

#if canImport(Glibc)
import Glibc
#endif

/// A JSON value written by Jansson (Debian's libjansson, the parser StrictJSON already links) instead of Foundation's
/// `JSONEncoder`, for the bodies sent with every call: the encoder's containers and per-member key conversion cost
/// several times the push's own sending (issue 33).
///
/// The text matches what `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes for the same members:
/// no whitespace, members sorted by name (byte order, which is the encoder's for ASCII names), `/` not escaped, UTF-8
/// as it is. Control characters below U+0020 other than `\b \f \n \r \t` are written `\u001F` where the encoder
/// writes `\u001f`, and a `double` with 17 significant digits where the encoder writes the shortest text that reads
/// back as the same number (`12.345000000000001` for `12.345`): every reader reads both alike (RFC 8259 §6, §7).
public indirect enum JSONWriter: Sendable {
    case string(String)
    case integer(Int64)
    /// A finite number; NaN or an infinity makes ``bytes()`` nil, as JSON has no text for them.
    case double(Double)
    case bool(Bool)
    /// Members in any order (they are written sorted); a name given twice keeps the last value.
    case object([(String, JSONWriter)])
    case array([JSONWriter])

    /// The value's compact text, members sorted.
    /// - Returns: UTF-8 bytes; nil when Jansson could not allocate the value or its text.
    public func bytes() -> [UInt8]? {
        guard let value = makeValue() else { return nil }
        defer { json_decref(value) }
        guard let text = json_dumps(value, CJANSSON_COMPACT_SORTED) else { return nil }
        defer { free(text) }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    /// The Jansson value, owned by the caller; nil (nothing leaked) when a piece could not be made.
    private func makeValue() -> UnsafeMutablePointer<json_t>? {
        switch self {
        case .string(let text):
            var text = text
            // A Swift string is valid UTF-8, so Jansson need not check it again.
            return text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { characters in
                    guard let start = characters.baseAddress else { return json_string("") }
                    return json_stringn_nocheck(start, characters.count)
                }
            }
        case .integer(let number):
            return json_integer(json_int_t(number))
        case .double(let number):
            return number.isFinite ? json_real(number) : nil
        case .bool(let flag):
            return flag ? json_true() : json_false()
        case .object(let members):
            guard let object = json_object() else { return nil }
            for (name, member) in members {
                // Jansson takes the member whether it succeeds or not, and refuses a nil one: a piece that could not
                // be made fails the whole value, and nothing leaks.
                if json_object_set_new(object, name, member.makeValue()) != 0 {
                    json_decref(object)
                    return nil
                }
            }
            return object
        case .array(let elements):
            guard let array = json_array() else { return nil }
            for element in elements where json_array_append_new(array, element.makeValue()) != 0 {
                json_decref(array)
                return nil
            }
            return array
        }
    }
}
