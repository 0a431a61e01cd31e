/// A compact JWS split into its parts (RFC 7515 §7.1), with the header decoded and checked.
struct CompactToken {
    /// Tokens longer than this are refused before any parsing, in bytes.
    static let maximumLength = 65_536

    /// The decoded JOSE header.
    let header: JWTHeader
    /// The ASCII bytes of `header.payload`, the JWS signing input.
    let signingInput: [UInt8]
    /// The decoded payload bytes (the claims JSON).
    let payload: [UInt8]
    /// The decoded signature bytes.
    let signature: [UInt8]

    /// Header parameters beyond ``JWTHeader`` that decoding must look at.
    private struct CriticalParameters: Decodable {
        var crit: [String]?
    }

    /// Splits and decodes `token`.
    /// - Throws: ``JWTError/malformed`` unless the token is exactly three canonical base64url parts
    ///   whose header is a JSON object with a string `alg` and no `crit` (RFC 7515 §4.1.11: this
    ///   library understands no extensions, so it must reject any marked critical).
    init(_ token: String) throws(JWTError) {
        guard token.utf8.count <= Self.maximumLength else {
            throw JWTError.malformed("token longer than \(Self.maximumLength) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JWTError.malformed("expected 3 dot-separated parts, found \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]) else { throw JWTError.malformed("header is not base64url") }
        guard let payload = Base64URL.decode(parts[1]) else { throw JWTError.malformed("payload is not base64url") }
        guard let signature = Base64URL.decode(parts[2]) else { throw JWTError.malformed("signature is not base64url") }
        let header = try JWTJSON.decode(JWTHeader.self, from: headerBytes, what: "header")
        if try JWTJSON.decode(CriticalParameters.self, from: headerBytes, what: "header").crit != nil {
            throw JWTError.malformed("header marks extensions critical (crit), none are supported")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }
}
