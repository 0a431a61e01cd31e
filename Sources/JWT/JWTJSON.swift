import Foundation
import StrictJSON

/// The JSON settings every token uses, so the same claims always produce the same bytes.
enum JWTJSON {
    /// Sorted keys and unescaped slashes; `Date` values become whole NumericDate seconds (RFC 7519 §2).
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int64(date.timeIntervalSince1970.rounded(.down)))
        }
        return encoder
    }

    /// Reads `Date` values as NumericDate seconds since 1970, fractions allowed.
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// Encodes `value`, which must encode as a JSON object (RFC 7519 §7.1 step 2).
    static func encodeObject(_ value: some Encodable, what: String) throws(JWTError) -> Data {
        let data: Data
        do {
            data = try encoder().encode(value)
        } catch {
            throw JWTError.encoding("\(what) could not be encoded as JSON")
        }
        guard data.first == UInt8(ascii: "{") else { throw JWTError.encoding("\(what) must encode as a JSON object") }
        return data
    }

    /// Decodes `type` from `data`, mapping any decoding failure to ``JWTError/malformed`` without echoing values.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from data: [UInt8], what: String
    ) throws(JWTError) -> Value {
        guard data.first(where: { !isWhitespace($0) }) == UInt8(ascii: "{") else {
            throw JWTError.malformed("\(what) is not a JSON object")
        }
        // RFC 7519 §4: a JWT whose claims repeat a name must be rejected (or its last taken). JSONDecoder would take
        // the first, so the token would mean one `sub` here and another to PyJWT and most other libraries.
        switch StrictJSON.refusal(of: data) {
        case .repeatedName: throw JWTError.malformed("\(what) names a member twice")
        case .ambiguous: throw JWTError.malformed("\(what) is JSON that readers do not all read alike")
        case nil: break
        }
        do {
            return try decoder().decode(type, from: Data(data))
        } catch let error as DecodingError {
            throw JWTError.malformed("\(what): \(summary(of: error))")
        } catch {
            throw JWTError.malformed("\(what) is not valid JSON")
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Names the failing key path and the kind of failure, never the value found there.
    private static func summary(of error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "missing key \"\(key.stringValue)\""
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        case .dataCorrupted(let context): return "invalid JSON or value at \(path(context))"
        @unknown default: return "cannot be decoded"
        }
    }
}
