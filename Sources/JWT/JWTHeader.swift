/// The JOSE header of a compact JWS (RFC 7515 §4.1).
///
/// Only the parameters Ringer uses are modelled; others are ignored when decoding. Keys are never
/// fetched from `jku`/`x5u`: the caller always picks the key.
public struct JWTHeader: Codable, Sendable, Equatable {
    /// The signing algorithm, e.g. `"ES256"` (RFC 7515 §4.1.1).
    public var alg: String
    /// The key ID, e.g. the 10-character APNs key ID (RFC 7515 §4.1.4).
    public var kid: String?
    /// The media type, conventionally `"JWT"` (RFC 7519 §5.1).
    public var typ: String?

    /// Creates a header.
    /// - Parameters:
    ///   - alg: The algorithm name, normally a ``JWTAlgorithm`` raw value.
    ///   - kid: The key ID, or `nil` to omit it.
    ///   - typ: The token type, or `nil` to omit it (APNs provider tokens carry none).
    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}
