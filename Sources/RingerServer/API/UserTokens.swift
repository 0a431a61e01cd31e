public import Foundation
import JWT
public import RingerWire

/// Mints and checks user tokens (docs/openapi.yaml `components/securitySchemes`): JWTs with `sub`, `iat`, `exp`, optional `nbf`
/// and `name`. Ringer mints HS256 with the shared secret; the app's backend may mint HS256 with the same
/// secret, or sign ES256/RS256 with a private key whose public key the server is given (`--user-token-public-key`,
/// several for rotation, matched by the token's `kid`), so the backend never holds Ringer's secret.
///
/// Every token is checked the same way: an allowed algorithm for its key (an HS256 token is never checked
/// against a public key, RFC 8725 §2.1), the signature, `exp`, `nbf` and `iat` with 60 s of leeway (RFC 7519
/// §4.1), a lifetime (`exp - iat`) of at most ``maximumLifetime``, and a valid `sub`.
public struct UserTokens: Sendable {
    /// The claims of a user token.
    public struct Claims: Codable, Sendable {
        /// The user id.
        public var sub: String
        /// Issued at, seconds since 1970.
        public var iat: Int64
        /// Expires at, seconds since 1970.
        public var exp: Int64
        /// Not before, seconds since 1970 (optional).
        public var nbf: Int64?
        /// Display name.
        public var name: String?
    }

    /// The longest a token may live, `exp - iat` in seconds: 30 days, the longest `POST /v1/tokens` mints, so a
    /// token minted elsewhere cannot outlive what Ringer itself would grant.
    public static let maximumLifetime = 30 * 24 * 3600

    private let key: JWTSigningKey
    private let verificationKey: JWTVerificationKey
    /// The app backend's public keys by `kid`.
    private let publicKeys: [String: JWTVerificationKey]
    /// Allowed clock difference with the token's issuer, seconds.
    public let leeway: TimeInterval = 60

    /// Creates the token authority that knows only the shared secret.
    /// - Parameter secret: the shared HS256 secret (at least 32 bytes).
    /// - Throws: `JWTError` when the secret is unusable.
    public init(secret: String) throws {
        try self.init(secret: secret, publicKeys: [:])
    }

    /// Creates the token authority.
    /// - Parameters:
    ///   - secret: the shared HS256 secret (at least 32 bytes).
    ///   - publicKeys: the app backend's ES256 or RS256 public keys by `kid`; empty for none.
    /// - Throws: `JWTError` when the secret is unusable.
    init(secret: String, publicKeys: [String: JWTVerificationKey]) throws {
        key = try JWTSigningKey(hmacSecret: secret)
        verificationKey = try JWTVerificationKey(hmacSecret: Array(secret.utf8))
        self.publicKeys = publicKeys
    }

    /// Reads the app backend's public keys, each `kid` its file's name without the extension
    /// (`keys/2026-12.pem` is `2026-12`).
    /// - Parameter files: SubjectPublicKeyInfo PEM files, EC P-256 or RSA of 2048 bits or more.
    /// - Returns: the keys by `kid`.
    /// - Throws: ``ConfigurationError`` naming a file that cannot be read, holds no such key, or repeats a `kid`.
    static func publicKeys(files: [String]) throws -> [String: JWTVerificationKey] {
        var keys: [String: JWTVerificationKey] = [:]
        for file in files {
            let kid = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigurationError("--user-token-public-key \(file): cannot read the file")
            }
            guard let key = try? JWTVerificationKey(publicKeyPEM: pem) else {
                throw ConfigurationError(
                    "--user-token-public-key \(file): not a PEM public key (EC P-256, or RSA of 2048 bits or more)")
            }
            guard keys[kid] == nil else {
                throw ConfigurationError("--user-token-public-key \(file): another file already gives kid \(kid)")
            }
            keys[kid] = key
        }
        return keys
    }

    /// Mints a token.
    /// - Parameters:
    ///   - userID: the `sub`.
    ///   - name: optional display name.
    ///   - ttl: lifetime in seconds.
    ///   - now: the issue time.
    /// - Returns: the token and its expiry.
    /// - Throws: `JWTError` if signing fails.
    public func mint(userID: String, name: String?, ttl: Int, now: Date) throws -> TokenResponse {
        let iat = Int64(now.timeIntervalSince1970)
        let claims = Claims(sub: userID, iat: iat, exp: iat + Int64(ttl), name: name)
        let token = try JWT.sign(claims, keyID: nil, type: "JWT", with: key)
        return TokenResponse(token: token, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }

    /// Checks a token's algorithm, key, signature and times.
    /// - Returns: the claims.
    /// - Throws: ``Problem`` 401 (`unauthorized`) for any invalid, expired, not-yet-valid or too long-lived token.
    public func verify(_ token: String, now: Date) throws -> Claims {
        let claims: Claims
        let algorithms: Set<JWTAlgorithm> = publicKeys.isEmpty ? [.hs256] : [.hs256, .es256, .rs256]
        do {
            claims = try JWT.verify(token, as: Claims.self, algorithms: algorithms) { header in
                if header.alg == JWTAlgorithm.hs256.rawValue { return verificationKey }
                // A token without `kid` is only unambiguous while one public key is configured.
                guard
                    let key = header.kid.map({ publicKeys[$0] })
                        ?? (publicKeys.count == 1 ? publicKeys.first?.value : nil)
                else {
                    throw APIProblem.unauthorized("the user token's kid names no configured public key")
                }
                return key
            }.claims
        } catch let problem as Problem {
            throw problem
        } catch {
            throw APIProblem.unauthorized("the user token is not valid")
        }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let validator = JWTClaimsValidator(leeway: Int64(leeway), requiresExpiration: true, requiresIssuedAt: true)
        do {
            try validator.validate(expiresAt: claims.exp, notBefore: claims.nbf, issuedAt: claims.iat, now: seconds)
        } catch let error as JWTError where error == .expired {
            throw APIProblem.unauthorized("the user token has expired")
        } catch {
            throw APIProblem.unauthorized("the user token is not valid yet")
        }
        guard claims.exp >= claims.iat else { throw APIProblem.unauthorized("the user token's exp is before its iat") }
        let (lifetime, overflow) = claims.exp.subtractingReportingOverflow(claims.iat)
        guard !overflow, lifetime <= Int64(Self.maximumLifetime) else {
            throw APIProblem.unauthorized("the user token lives longer than \(Self.maximumLifetime) s (exp - iat)")
        }
        guard UserID.isValid(claims.sub) else { throw APIProblem.unauthorized("the user token has no valid sub") }
        return claims
    }
}

/// The rules for identifiers chosen by apps (user ids, device ids) and display names.
public enum UserID {
    /// Longest display name, in characters (grapheme clusters); longer names in foreign tokens are cut.
    public static let maximumNameLength = 64
    /// Longest display name in UTF-8 bytes. The name travels in every ringing push: escaped for JSON it is at
    /// most twice this (no control character is allowed), which with the rest of the `ringer` body stays far
    /// below the smallest provider limit, FCM's 4096 bytes of data (Google: "FCM messages", payload limits;
    /// APNs allows 5120 for VoIP). 64 characters of most scripts fit; 64 emoji sequences of 11 KB do not.
    public static let maximumNameBytes = 256

    /// Why `name` cannot be a display name, or nil when it can: 1…``maximumNameLength`` characters,
    /// at most ``maximumNameBytes`` bytes, no control character (U+0000–U+001F, U+007F–U+009F), which SQLite,
    /// logs and notification banners would each treat differently, and nothing with which a caller could make the
    /// callee's screen show another name or none (``showsWrongly(_:)``).
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name.count > maximumNameLength {
            return "name must be 1 to \(maximumNameLength) characters"
        }
        if name.utf8.count > maximumNameBytes { return "name must be at most \(maximumNameBytes) bytes of UTF-8" }
        if name.unicodeScalars.contains(where: isControl) { return "name must not contain control characters" }
        if showsWrongly(name) {
            return
                "name must show: no bidirectional override or isolate, zero-width space or line separator, and not blank"
        }
        return nil
    }

    /// A name from a token minted by the app's backend, made fit to ring with: control characters and those
    /// ``showsWrongly(_:)`` refuses dropped (a blank name is none),
    /// then cut to ``maximumNameLength`` characters and ``maximumNameBytes`` bytes at a character boundary, so
    /// a call from its user can always be pushed. Nil when nothing is left.
    public static func displayName(fromToken name: String?) -> String? {
        guard let name else { return nil }
        let scalars = showable(name).scalars
        var fitted = ""
        var bytes = 0
        for character in String(scalars).prefix(maximumNameLength) {
            bytes += character.utf8.count
            if bytes > maximumNameBytes { break }
            fitted.append(character)
        }
        return fitted.isEmpty || showsWrongly(fitted) ? nil : fitted
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// Whether `name` holds a scalar that changes what is shown while showing nothing, or shows nothing at all:
    ///
    /// - the bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, with which
    ///   `Bob\u{202E}gnp.exe` read "Bobexe.png" on the callee's screen (issue 26), and the deprecated format
    ///   controls U+206A–U+206F;
    /// - the zero-width space U+200B, the word joiner and invisible operators U+2060–U+2064, U+FEFF, and the
    ///   interlinear annotation marks U+FFF9–U+FFFB, which hide text or join a name to a look-alike;
    /// - the line and paragraph separators (Zl, Zp), which break a banner's line;
    /// - tag characters (U+E0001–U+E007F) outside an emoji tag sequence (UTS #51 §2.8: U+1F3F4 and tags, as in the
    ///   flag of Scotland), where they show nothing;
    /// - and a name of nothing but spaces and default-ignorable characters (the Hangul filler U+3164…).
    ///
    /// Kept, because real names need them: the directional marks U+200E, U+200F and U+061C that keyboards put into
    /// mixed-direction names, the joiners U+200C and U+200D (emoji sequences, Persian, Indic scripts), the soft
    /// hyphen, and the other format characters of scripts (U+0600–U+0605, U+070F, U+180E).
    private static func showsWrongly(_ name: String) -> Bool {
        let (kept, droppedAny) = showable(name)
        return droppedAny
            || !kept.contains { !$0.properties.isWhitespace && !$0.properties.isDefaultIgnorableCodePoint }
    }

    /// The scalars of `name` a screen may show, in order: no control character, none ``isRefusedFormat(_:)`` names,
    /// tag characters only inside an emoji tag sequence (after U+1F3F4 or another kept tag, never U+E0001); and
    /// whether any was left out. The one rule behind both ``showsWrongly(_:)`` and ``displayName(fromToken:)``.
    private static func showable(_ name: String) -> (scalars: String.UnicodeScalarView, droppedAny: Bool) {
        var kept = String.UnicodeScalarView()
        var droppedAny = false
        var afterTagBase = false
        for scalar in name.unicodeScalars {
            if isControl(scalar) || isRefusedFormat(scalar) {
                droppedAny = true
                continue
            }
            if isTag(scalar) {
                afterTagBase = afterTagBase && scalar.value != 0xE0001
                if afterTagBase { kept.append(scalar) } else { droppedAny = true }
                continue
            }
            kept.append(scalar)
            afterTagBase = scalar.value == 0x1F3F4
        }
        return (kept, droppedAny)
    }

    /// The scalars ``showsWrongly(_:)`` refuses wherever they stand.
    private static func isRefusedFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x206F, 0x200B, 0x2060...0x2064, 0xFEFF, 0xFFF9...0xFFFB: return true
        default:
            let category = scalar.properties.generalCategory
            return category == .lineSeparator || category == .paragraphSeparator
        }
    }

    /// A tag character (U+E0001–U+E007F).
    private static func isTag(_ scalar: Unicode.Scalar) -> Bool { (0xE0001...0xE007F).contains(scalar.value) }

    /// 1…128 characters of letters, digits and `._:@-`.
    public static func isValid(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == 46 || byte == 95 || byte == 58 || byte == 64 || byte == 45
        }
    }
}
