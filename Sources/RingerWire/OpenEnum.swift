/// A string-backed value set that stays decodable when the server adds new values.
///
/// Wire enums are structs with static members rather than Swift `enum`s: an app built against an
/// older RingerKit must still decode a payload carrying a state or event type it has never seen,
/// and callers' `switch` statements are not broken by additions.
public protocol OpenStringEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String {
    /// Creates the value; any string is accepted.
    init(rawValue: String)
}

extension OpenStringEnum {
    /// Creates the value from a literal, such as `"call.incoming"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }

    /// Decodes the value from a JSON string; any string is accepted.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
