import Foundation
import JWT
import RingerHTTP

/// Apple's provider API rules, as the sandbox applies them to one request
/// (Apple: "Sending notification requests to APNs", "Establishing a token-based connection to APNs",
/// "Establishing a certificate-based connection to APNs", "Handling notification responses from APNs").
///
/// Pure: the caller supplies the parsed request, the known keys and devices, and the time.
struct APNsRequestValidator: Sendable {
    /// A provider key the sandbox trusts: Apple's key id, the team that owns it, its public key.
    struct ProviderKey: Sendable {
        var keyID: String
        var teamID: String
        var publicKey: JWTVerificationKey
    }

    /// The request as received.
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
        /// The connection's verified client certificate: it replaces the provider token.
        var clientCertificate: HTTPRequest.ClientCertificate? = nil
    }

    /// A refusal: HTTP status and Apple's reason string.
    struct Rejection: Error, Equatable, Sendable {
        var status: Int
        var reason: String
        /// For 410 `Unregistered`: ms since 1970.
        var timestamp: Int64?
    }

    /// A provider token whose signature, key id and team were verified: what a cache may keep, so the
    /// same token (reused for up to an hour, as Apple asks) is not verified again on every request.
    struct VerifiedToken: Sendable {
        var keyID: String
        var teamID: String
        var issuedAt: Int64
    }

    /// What an accepted request asks for.
    struct Accepted: Sendable {
        var token: String
        var topic: String
        var pushType: String
        var priority: Int
        var expiration: Int64
    }

    private static let pushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider",
        "mdm", "location", "liveactivity", "pushtotalk", "widgets",
        "controls",
    ]

    /// Longest a provider token is honoured after its `iat`, seconds (Apple: one hour).
    var maximumTokenAge: TimeInterval = 3600

    /// Checks a request in Apple's order: method, path, authentication, headers, payload, device.
    /// - Parameters:
    ///   - verified: a provider token verified before (its key must still be known with the same team);
    ///     its age is checked again.
    ///   - remember: called with a token whose signature was verified by this call.
    /// - Returns: what to deliver.
    /// - Throws: ``Rejection`` with Apple's status and reason.
    func validate(
        _ request: Request, keys: [String: ProviderKey], device: (String) -> SandboxDevice?,
        now: Date, verified: (String) -> VerifiedToken? = { _ in nil },
        remember: (String, VerifiedToken) -> Void = { _, _ in }
    ) throws -> Accepted {
        guard request.method == "POST" else { throw Rejection(status: 405, reason: "MethodNotAllowed") }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { throw Rejection(status: 404, reason: "BadPath") }
        let token = String(request.path.dropFirst(prefix.count)).lowercased()
        guard !token.isEmpty else { throw Rejection(status: 400, reason: "MissingDeviceToken") }
        // Apple documents no answer for a provider token sent on a certificate connection; the sandbox lets
        // the certificate decide and ignores the `authorization` header there.
        var certificateTopics: Set<String>?
        if let certificate = request.clientCertificate {
            certificateTopics = try Self.topics(of: certificate, now: now)
        } else {
            try checkProviderToken(
                request.headers["authorization"], keys: keys, now: now, verified: verified,
                remember: remember)
        }

        // The sandbox's certificates all cover several topics, for which Apple requires `apns-topic`.
        guard let topic = request.headers["apns-topic"], !topic.isEmpty else {
            throw Rejection(status: 400, reason: "MissingTopic")
        }
        if let certificateTopics, !certificateTopics.contains(topic) {
            throw Rejection(status: 400, reason: "TopicDisallowed")
        }
        let pushType = request.headers["apns-push-type"] ?? "alert"
        guard Self.pushTypes.contains(pushType) else { throw Rejection(status: 400, reason: "InvalidPushType") }
        // A VoIP push must go to the `.voip` topic and only a VoIP push may (Apple: apns-push-type "voip").
        guard (pushType == "voip") == topic.hasSuffix(".voip") else {
            throw Rejection(status: 400, reason: "InvalidPushType")
        }
        var priority = 10
        if let text = request.headers["apns-priority"] {
            guard let value = Int(text), [1, 5, 10].contains(value) else {
                throw Rejection(status: 400, reason: "BadPriority")
            }
            priority = value
        }
        var expiration: Int64 = 0
        if let text = request.headers["apns-expiration"] {
            guard let value = Int64(text), value >= 0 else { throw Rejection(status: 400, reason: "BadExpirationDate") }
            expiration = value
        }
        if let id = request.headers["apns-id"], UUID(uuidString: id) == nil {
            throw Rejection(status: 400, reason: "BadMessageId")
        }
        if let collapse = request.headers["apns-collapse-id"], collapse.utf8.count > 64 {
            throw Rejection(status: 400, reason: "BadCollapseId")
        }
        guard !request.body.isEmpty else { throw Rejection(status: 400, reason: "PayloadEmpty") }
        let limit = pushType == "voip" ? 5120 : 4096
        guard request.body.count <= limit else { throw Rejection(status: 413, reason: "PayloadTooLarge") }

        guard Self.isHexToken(token), let known = device(token) else {
            throw Rejection(status: 400, reason: "BadDeviceToken")
        }
        guard topic == known.bundleID || topic == known.bundleID + ".voip" else {
            throw Rejection(status: 400, reason: "DeviceTokenNotForTopic")
        }
        if let gone = known.unregisteredAt {
            throw Rejection(
                status: 410, reason: "Unregistered",
                timestamp: Int64((gone.timeIntervalSince1970 * 1000).rounded(.down)))
        }
        return Accepted(token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration)
    }

    /// The topics a client certificate may push to. Apple's push certificate names one app (its bundle id in
    /// the subject's UID) and covers that app's VoIP and watch complication topics too; the sandbox treats
    /// every certificate from its client CA so.
    /// - Throws: 403 `BadCertificate` for a certificate without a UID or past its end date by `now`
    ///   (the handshake already refused one expired by the wall clock).
    private static func topics(of certificate: HTTPRequest.ClientCertificate, now: Date) throws -> Set<String> {
        guard let bundleID = certificate.subjectUID, !bundleID.isEmpty,
            TimeInterval(certificate.notAfter) > now.timeIntervalSince1970
        else {
            throw Rejection(status: 403, reason: "BadCertificate")
        }
        return [bundleID, bundleID + ".voip", bundleID + ".complication"]
    }

    /// `authorization: bearer <ES256 JWT with kid; claims iss, iat>`.
    private func checkProviderToken(
        _ header: String?, keys: [String: ProviderKey], now: Date,
        verified cached: (String) -> VerifiedToken?,
        remember: (String, VerifiedToken) -> Void
    ) throws {
        guard let header, header.lowercased().hasPrefix("bearer "), header.count > 7 else {
            throw Rejection(status: 403, reason: "MissingProviderToken")
        }
        struct Claims: Decodable {
            var iss: String
            var iat: Int64
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let checked: VerifiedToken
        if let known = cached(token), keys[known.keyID]?.teamID == known.teamID {
            checked = known
        } else {
            let verified: (header: JWTHeader, claims: Claims)
            do {
                verified = try JWT.verify(token, as: Claims.self, algorithms: [.es256]) { header in
                    guard let kid = header.kid, let key = keys[kid] else {
                        throw Rejection(status: 403, reason: "InvalidProviderToken")
                    }
                    return key.publicKey
                }
            } catch {
                throw Rejection(status: 403, reason: "InvalidProviderToken")
            }
            guard let kid = verified.header.kid, let key = keys[kid], key.teamID == verified.claims.iss else {
                throw Rejection(status: 403, reason: "InvalidProviderToken")
            }
            checked = VerifiedToken(keyID: kid, teamID: key.teamID, issuedAt: verified.claims.iat)
            remember(token, checked)
        }
        let age = now.timeIntervalSince1970 - TimeInterval(checked.issuedAt)
        guard age <= maximumTokenAge else { throw Rejection(status: 403, reason: "ExpiredProviderToken") }
        guard age >= -60 else { throw Rejection(status: 403, reason: "InvalidProviderToken") }
    }

    /// An even number of ASCII hex digits (not Unicode "hex digits" such as full-width ones).
    static func isHexToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count % 2 == 0
            && token.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
            }
    }
}
