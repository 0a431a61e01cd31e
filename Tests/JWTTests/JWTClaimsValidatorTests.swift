import JWT
import Testing

@Suite("Time-claim validation")
struct JWTClaimsValidatorTests {
    private let now: Int64 = 1_700_000_000

    @Test("exp is honoured with leeway")
    func expiration() throws {
        let validator = JWTClaimsValidator(leeway: 30)
        try validator.validate(expiresAt: now + 1, issuedAt: nil, now: now)
        try validator.validate(expiresAt: now - 29, issuedAt: nil, now: now)
        #expect(throws: JWTError.expired) { try validator.validate(expiresAt: now - 30, issuedAt: nil, now: now) }
        #expect(throws: JWTError.expired) {
            try JWTClaimsValidator(leeway: 0).validate(expiresAt: now, issuedAt: nil, now: now)
        }
    }

    @Test("nbf and a future iat are not yet valid")
    func notYetValid() throws {
        let validator = JWTClaimsValidator(leeway: 60)
        try validator.validate(expiresAt: nil, notBefore: now + 60, issuedAt: now + 60, now: now)
        #expect(throws: JWTError.notYetValid) {
            try validator.validate(expiresAt: nil, notBefore: now + 61, issuedAt: nil, now: now)
        }
        #expect(throws: JWTError.notYetValid) { try validator.validate(expiresAt: nil, issuedAt: now + 61, now: now) }
    }

    @Test("An APNs-style maximum age rejects tokens issued over an hour ago")
    func maximumAge() throws {
        let apns = JWTClaimsValidator(leeway: 0, maximumAge: 3600, requiresIssuedAt: true)
        try apns.validate(expiresAt: nil, issuedAt: now - 3600, now: now)
        #expect(throws: JWTError.issuedTooLongAgo) { try apns.validate(expiresAt: nil, issuedAt: now - 3601, now: now) }
        #expect(throws: JWTError.missingClaim) { try apns.validate(expiresAt: nil, issuedAt: nil, now: now) }
    }

    @Test("Required claims must be present")
    func requiredClaims() {
        let validator = JWTClaimsValidator(requiresExpiration: true)
        #expect(throws: JWTError.missingClaim) { try validator.validate(expiresAt: nil, issuedAt: now, now: now) }
    }

    @Test("Extreme claim values neither trap nor pass wrongly")
    func extremes() throws {
        let validator = JWTClaimsValidator(leeway: 60, maximumAge: 3600)
        try validator.validate(expiresAt: .max, issuedAt: now, now: now)
        #expect(throws: JWTError.expired) { try validator.validate(expiresAt: .min, issuedAt: nil, now: now) }
        #expect(throws: JWTError.notYetValid) { try validator.validate(expiresAt: nil, issuedAt: .max, now: now) }
        #expect(throws: JWTError.issuedTooLongAgo) { try validator.validate(expiresAt: nil, issuedAt: .min, now: now) }
        #expect(throws: JWTError.notYetValid) {
            try validator.validate(expiresAt: nil, notBefore: .max, issuedAt: nil, now: .min)
        }
    }
}
