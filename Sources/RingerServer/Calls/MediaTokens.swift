import Foundation
import JWT
import RingerSupport
import RingerWire

/// Mints LiveKit-compatible access tokens for a call's media room.
///
/// LiveKit: "Authentication" — an HS256 JWT signed with the API secret, `iss` = API key,
/// `sub` = participant identity, `nbf`/`exp`, and a `video` grant naming the room with `roomJoin`.
/// The room is the call id, so both parties meet in the same room.
struct MediaTokens: Sendable {
    private struct VideoGrant: Codable {
        var room: String
        var roomJoin: Bool
        var canPublish: Bool
        var canSubscribe: Bool
    }

    private struct Claims: Codable {
        var iss: String
        var sub: String
        var name: String?
        var nbf: Int64
        var exp: Int64
        var jti: String
        var video: VideoGrant
    }

    private let settings: ServerConfiguration.MediaSettings
    private let key: JWTSigningKey

    /// - Throws: `JWTError` when the secret is unusable.
    init(settings: ServerConfiguration.MediaSettings) throws {
        self.settings = settings
        key = try JWTSigningKey(hmacSecret: settings.apiSecret)
    }

    /// A media session for `user` in the room named after `callID`.
    /// - Throws: `JWTError` if signing fails.
    func session(for user: Party, callID: String, now: Date) throws -> MediaSession {
        let nbf = Int64(now.timeIntervalSince1970)
        let claims = Claims(
            iss: settings.apiKey, sub: user.id, name: user.name, nbf: nbf,
            exp: nbf + Int64(settings.tokenTTL), jti: UUID.random().lowercaseText,
            video: VideoGrant(room: callID, roomJoin: true, canPublish: true, canSubscribe: true))
        return MediaSession(url: settings.url, token: try JWT.sign(claims, keyID: nil, type: "JWT", with: key))
    }
}
