public import Foundation

/// The JSON conventions of Ringer's API: snake_case keys and ISO 8601 UTC timestamps with
/// milliseconds (`2026-11-30T12:00:00.123Z`). Server, SDK and simulator all use these coders.
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
                throw DecodingError.dataCorruptedError(in: container,
                                                       debugDescription: "expected an ISO 8601 timestamp")
            }
            return date
        }
        return decoder
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

    /// Formats a date as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC.
    public static func formatTimestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Parses an ISO 8601 UTC timestamp with or without fractional seconds.
    /// - Returns: the date, or nil when the text is not such a timestamp.
    public static func parseTimestamp(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

extension Date {
    /// Milliseconds since 1970, the unit of the VoIP push payload's `sent_at` and `expires_at`.
    public var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Creates a date from milliseconds since 1970.
    public init(unixMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000) }
}
