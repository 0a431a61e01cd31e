public import Foundation

/// The JSON conventions of Ringer's API: snake_case keys and ISO 8601 UTC timestamps with
/// milliseconds (`2026-11-30T12:00:00.123Z`). Server, SDK and simulator all use these coders.
///
/// Keys go through Foundation's own `convertToSnakeCase` and `convertFromSnakeCase`, which read `call_id` as
/// `callId`; so a wire type whose property Swift spells `callID` names its key `callId` in its coding keys. Not a
/// custom key strategy: Foundation then builds a coding path for every key, and a call's JSON took 3.6 times as
/// long to encode.
public enum RingerJSON {
    /// A new encoder with Ringer's conventions; keys are sorted so output is stable.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatTimestamp(date))
        }
        return encoder
    }

    /// A new decoder with Ringer's conventions. Timestamps may omit the fraction.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseTimestamp(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected an ISO 8601 timestamp")
            }
            return date
        }
        return decoder
    }

    /// A property's wire key, as its coding keys and `convertToSnakeCase` make it: `callID` → `call_id`. A word
    /// starts at an upper-case letter after a lower-case letter or digit, and at the last capital of a run followed
    /// by a lower-case letter (`mediaURLPath` → `media_url_path`); `ID` and `IDs` are words of their own. Used where
    /// the server names a field from its Swift name (the null check of request bodies).
    /// - Parameter name: a Swift property name.
    /// - Returns: its key on the wire.
    public static func snakeCase(_ name: String) -> String {
        let characters = Array(
            name.replacingOccurrences(of: "IDs", with: "Ids").replacingOccurrences(of: "ID", with: "Id"))
        var out = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    out.append("_")
                }
            }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }

    /// Encodes a value to bytes with ``encoder()``.
    /// - Throws: `EncodingError` if the value cannot be encoded.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder().encode(value)
    }

    /// Decodes a value from bytes with ``decoder()``.
    /// - Throws: `DecodingError` when the bytes are not JSON of the expected shape.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }

    /// Formats a date as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, rounded to the nearest millisecond.
    ///
    /// The milliseconds are computed as an integer, not left to floating point, so a timestamp read
    /// back and written again is the same text (a stored call keeps its `created_at` exactly). The calendar fields
    /// come from the C library's `gmtime_r`: a new `ISO8601FormatStyle` for each timestamp cost more than the rest of
    /// a call's encoding (issue 33).
    public static func formatTimestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (whole, fraction) =
            seconds.remainder < 0
            ? (seconds.quotient - 1, seconds.remainder + 1000)
            : (seconds.quotient, seconds.remainder)
        var parts = tm()
        // A `time_t` of 32 bits (watchOS on arm64_32) ends in 2038, and years outside 1-9999 are not four digits: the
        // formatter writes those.
        guard var time = time_t(exactly: whole), gmtime_r(&time, &parts) != nil, (-1899...8099).contains(parts.tm_year)
        else {
            let text = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: TimeInterval(whole)))
            return text.dropLast() + "." + String(fraction + 1000).dropFirst() + "Z"
        }
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        append(Int(parts.tm_year) + 1900, width: 4)
        text += "-"
        append(Int(parts.tm_mon) + 1, width: 2)
        text += "-"
        append(Int(parts.tm_mday), width: 2)
        text += "T"
        append(Int(parts.tm_hour), width: 2)
        text += ":"
        append(Int(parts.tm_min), width: 2)
        text += ":"
        append(Int(parts.tm_sec), width: 2)
        text += "."
        append(Int(fraction), width: 3)
        text += "Z"
        return text
    }

    /// Parses an ISO 8601 UTC timestamp with or without fractional seconds.
    /// - Returns: the date, or nil when the text is not such a timestamp.
    public static func parseTimestamp(_ text: String) -> Date? {
        guard
            let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
        else { return nil }
        // Snap to the millisecond the text names, so parsing then formatting is exact.
        return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension Date {
    /// Milliseconds since 1970, the unit of the VoIP push payload's `sent_at` and `expires_at`.
    public var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// Creates a date from milliseconds since 1970.
    public init(unixMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000) }
}
