import Foundation
import JWT
import Testing

@testable import RingerSandbox

/// Google's token endpoint rules for a service account's JWT grant, as the sandbox applies them.
@Suite struct FCMTokenGrantValidatorTests {
    static let key = try! JWTSigningKey.generateRSA()
    static let email = "ringer@ringer-dev.iam.gserviceaccount.com"
    static let tokenURI = "https://localhost:2199/token"
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = FCMTokenGrantValidator()

    struct Claims: Encodable {
        var iss: String
        var aud: String
        var scope: String?
        var iat: Int64
        var exp: Int64
    }

    static var account: FCMSandboxServiceAccount {
        try! FCMSandboxServiceAccount(
            clientEmail: email, keyID: "key-1", publicKeyPEM: try! key.publicKeyPEM(),
            projectID: "ringer-dev", otherProjectIDs: ["ringer-other"])
    }

    func assertion(
        iss: String = FCMTokenGrantValidatorTests.email, aud: String = FCMTokenGrantValidatorTests.tokenURI,
        scope: String? = "https://www.googleapis.com/auth/firebase.messaging", issuedAgo: Int64 = 0,
        lifetime: Int64 = 3600, kid: String? = "key-1", key: JWTSigningKey = FCMTokenGrantValidatorTests.key
    ) -> String {
        let iat = Int64(now.timeIntervalSince1970) - issuedAgo
        return try! JWT.sign(
            Claims(iss: iss, aud: aud, scope: scope, iat: iat, exp: iat + lifetime), keyID: kid, with: key)
    }

    func form(
        _ assertion: String, grantType: String = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
    ) -> [UInt8] {
        Array("grant_type=\(grantType)&assertion=\(assertion)".utf8)
    }

    func outcome(
        _ body: [UInt8], method: String = "POST",
        accounts: [FCMSandboxServiceAccount] = [FCMTokenGrantValidatorTests.account]
    )
        -> Result<FCMTokenGrantValidator.Grant, FCMTokenGrantValidator.Rejection>
    {
        do {
            return .success(
                try validator.validate(
                    method: method, body: body, accounts: accounts,
                    audiences: [Self.tokenURI], now: now))
        } catch {
            return .failure(error)
        }
    }

    func refusal(_ body: [UInt8], method: String = "POST") -> FCMTokenGrantValidator.Rejection? {
        if case .failure(let rejection) = outcome(body, method: method) { return rejection }
        return nil
    }

    @Test func aGoodGrantAllowsTheAccountsProjectsAndScopes() throws {
        let grant = try outcome(form(assertion())).get()
        #expect(grant.clientEmail == Self.email)
        #expect(grant.projectIDs == ["ringer-dev", "ringer-other"])
        #expect(grant.scopes == ["https://www.googleapis.com/auth/firebase.messaging"])
    }

    @Test func googlesOwnTokenURIAndTheFilesTokenURIAreAcceptedAudiences() throws {
        #expect((try? outcome(form(assertion(aud: "https://oauth2.googleapis.com/token"))).get()) != nil)
        var account = Self.account
        account.tokenURI = "https://fcm-sandbox.test:9443/token"
        let body = form(assertion(aud: "https://fcm-sandbox.test:9443/token"))
        #expect((try? outcome(body, accounts: [account]).get()) != nil)
        #expect(refusal(body) == .badAudience)
    }

    @Test func aWrongAudienceIsAnInvalidGrant() {
        #expect(refusal(form(assertion(aud: "https://localhost:9999/token"))) == .badAudience)
        #expect(refusal(form(assertion(aud: "https://localhost:2199/oauth2/token"))) == .badAudience)
    }

    @Test func aSignatureByAnotherKeyIsAnInvalidJWTSignature() throws {
        let stranger = try JWTSigningKey.generateRSA()
        let refused = try #require(refusal(form(assertion(key: stranger))))
        #expect(refused == .badSignature)
        #expect(refused.error == "invalid_grant" && refused.description == "Invalid JWT Signature.")
        // An ES256 grant is not one Google takes either.
        #expect(refusal(form(assertion(key: try JWTSigningKey.generateP256()))) == .badSignature)
        // A tampered token (its payload changed after signing).
        let parts = assertion().split(separator: ".")
        let forged = [
            String(parts[0]), Base64URLForTests.encode(#"{"iss":"\#(Self.email)","aud":"\#(Self.tokenURI)"}"#),
            String(parts[2]),
        ]
        #expect(refusal(form(forged.joined(separator: "."))) == .badSignature)
    }

    @Test func anUnknownOrMissingKeyIDIsAnInvalidJWTSignature() {
        #expect(refusal(form(assertion(kid: "key-2"))) == .badSignature)
        #expect(refusal(form(assertion(kid: nil))) == .badSignature)
    }

    @Test func anUnknownIssuerIsAccountNotFound() throws {
        let refused = try #require(refusal(form(assertion(iss: "stranger@elsewhere.iam.gserviceaccount.com"))))
        #expect(refused == .accountNotFound && refused.description == "Invalid grant: account not found")
    }

    @Test func anExpiredGrantIsRefused() throws {
        let refused = try #require(refusal(form(assertion(issuedAgo: 3601, lifetime: 3600))))
        #expect(refused == .badLifetime)
        #expect(refused.description.hasPrefix("Invalid JWT: Token must be a short-lived token (60 minutes)"))
        // Still inside its lifetime, although issued long ago.
        #expect((try? outcome(form(assertion(issuedAgo: 3500, lifetime: 3600))).get()) != nil)
    }

    @Test func aLifetimeOverAnHourIsRefused() {
        #expect(refusal(form(assertion(lifetime: 3601))) == .badLifetime)
        #expect((try? outcome(form(assertion(lifetime: 3600))).get()) != nil)
        #expect(refusal(form(assertion(lifetime: 0))) == .badLifetime)
    }

    @Test func aGrantIssuedInTheFutureIsRefusedBeyondASmallSkew() {
        #expect((try? outcome(form(assertion(issuedAgo: -30, lifetime: 600))).get()) != nil)
        #expect(refusal(form(assertion(issuedAgo: -120, lifetime: 600))) == .badLifetime)
    }

    @Test func aGrantWithoutAGoogleScopeIsAnInvalidScope() {
        #expect(refusal(form(assertion(scope: nil))) == .badScope)
        #expect(refusal(form(assertion(scope: ""))) == .badScope)
        #expect(refusal(form(assertion(scope: "email"))) == .badScope)
        #expect(refusal(form(assertion(scope: nil)))?.error == "invalid_scope")
    }

    @Test func onlyTheJWTBearerGrantTypeIsSupported() throws {
        let refused = try #require(refusal(form(assertion(), grantType: "client_credentials")))
        #expect(refused.error == "unsupported_grant_type" && refused.status == 400)
        #expect(refusal(Array("assertion=\(assertion())".utf8))?.error == "unsupported_grant_type")
        let missing = try #require(
            refusal(Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8)))
        #expect(missing.error == "invalid_request")
        #expect(refusal(form("not-a-jwt")) == .malformed)
        #expect(refusal(form(assertion()), method: "GET")?.status == 405)
    }

    @Test func formFieldsArePercentAndPlusDecoded() {
        let fields = FCMTokenGrantValidator.formFields(Array("a=x+y%2Bz&b=%E2%9C%93&a=second&c&bad=%ZZ".utf8))
        #expect(fields == ["a": "x y+z", "b": "✓", "c": ""])
    }

    @Test func refusalsHaveGooglesOAuthErrorShape() throws {
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(FCMTokenGrantValidator.Rejection.badSignature.body))
                as? [String: String])
        #expect(body == ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])
    }
}

/// base64url without padding, for hand-made token parts (RFC 4648 §5).
enum Base64URLForTests {
    static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
