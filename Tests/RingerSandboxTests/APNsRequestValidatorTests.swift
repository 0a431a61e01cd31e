import Foundation
import JWT
import Testing

@testable import RingerSandbox

/// Apple's provider-API rules as the sandbox applies them, one rule per test.
@Suite struct APNsRequestValidatorTests {
    static let key = try! JWTSigningKey.generateP256()
    static let token = String(repeating: "0a", count: 32)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = APNsRequestValidator()

    struct Claims: Encodable {
        var iss: String
        var iat: Int64
    }

    func providerToken(
        kid: String = "KEYID12345", iss: String = "TEAMID1234", age: TimeInterval = 0,
        key: JWTSigningKey = APNsRequestValidatorTests.key
    ) -> String {
        try! JWT.sign(Claims(iss: iss, iat: Int64(now.timeIntervalSince1970 - age)), keyID: kid, type: nil, with: key)
    }

    var keys: [String: APNsRequestValidator.ProviderKey] {
        ["KEYID12345": .init(keyID: "KEYID12345", teamID: "TEAMID1234", publicKey: try! Self.key.publicKey())]
    }

    func request(
        method: String = "POST", path: String = "/3/device/" + APNsRequestValidatorTests.token,
        headers: [String: String] = [:], removing: [String] = [],
        body: [UInt8] = Array(#"{"ringer":{}}"#.utf8)
    ) -> APNsRequestValidator.Request {
        var all = [
            "authorization": "bearer " + providerToken(), "apns-topic": "com.example.app.voip",
            "apns-push-type": "voip", "apns-priority": "10", "apns-expiration": "0",
        ]
        all.merge(headers) { $1 }
        for name in removing { all[name] = nil }
        return .init(method: method, path: path, headers: all, body: body)
    }

    func outcome(_ request: APNsRequestValidator.Request, unregisteredAt: Date? = nil) -> (Int, String) {
        var device = SandboxDevice(token: Self.token, bundleID: "com.example.app")
        device.unregisteredAt = unregisteredAt
        do {
            _ = try validator.validate(request, keys: keys, device: { $0 == Self.token ? device : nil }, now: now)
            return (200, "")
        } catch let rejection as APNsRequestValidator.Rejection {
            return (rejection.status, rejection.reason)
        } catch {
            return (0, "\(error)")
        }
    }

    @Test func validVoIPPushIsAccepted() { #expect(outcome(request()) == (200, "")) }

    @Test func onlyPostIsAllowed() { #expect(outcome(request(method: "GET")) == (405, "MethodNotAllowed")) }

    @Test func pathMustBeDevice() {
        #expect(outcome(request(path: "/3/other/x")) == (404, "BadPath"))
        #expect(outcome(request(path: "/3/device/")) == (400, "MissingDeviceToken"))
    }

    @Test func providerTokenIsChecked() {
        #expect(outcome(request(removing: ["authorization"])) == (403, "MissingProviderToken"))
        #expect(outcome(request(headers: ["authorization": "bearer not.a.jwt"])) == (403, "InvalidProviderToken"))
        #expect(
            outcome(request(headers: ["authorization": "bearer " + providerToken(kid: "UNKNOWNKEY")]))
                == (403, "InvalidProviderToken"))
        #expect(
            outcome(request(headers: ["authorization": "bearer " + providerToken(iss: "OTHERTEAM1")]))
                == (403, "InvalidProviderToken"))
        let stranger = try! JWTSigningKey.generateP256()
        #expect(
            outcome(request(headers: ["authorization": "bearer " + providerToken(key: stranger)]))
                == (403, "InvalidProviderToken"))
        #expect(
            outcome(request(headers: ["authorization": "bearer " + providerToken(age: 3601)]))
                == (403, "ExpiredProviderToken"))
        #expect(outcome(request(headers: ["authorization": "bearer " + providerToken(age: 3000)])) == (200, ""))
    }

    @Test func topicAndPushTypeMustAgree() {
        #expect(outcome(request(removing: ["apns-topic"])) == (400, "MissingTopic"))
        #expect(outcome(request(headers: ["apns-topic": "com.example.app"])) == (400, "InvalidPushType"))
        #expect(outcome(request(headers: ["apns-push-type": "alert"])) == (400, "InvalidPushType"))
        #expect(outcome(request(headers: ["apns-push-type": "shout"])) == (400, "InvalidPushType"))
        #expect(outcome(request(headers: ["apns-topic": "com.other.app.voip"])) == (400, "DeviceTokenNotForTopic"))
        #expect(outcome(request(headers: ["apns-topic": "com.example.app", "apns-push-type": "alert"])) == (200, ""))
    }

    @Test func headerValuesAreChecked() {
        #expect(outcome(request(headers: ["apns-priority": "7"])) == (400, "BadPriority"))
        #expect(outcome(request(headers: ["apns-expiration": "soon"])) == (400, "BadExpirationDate"))
        #expect(outcome(request(headers: ["apns-id": "not-a-uuid"])) == (400, "BadMessageId"))
        #expect(
            outcome(request(headers: ["apns-collapse-id": String(repeating: "c", count: 65)])) == (400, "BadCollapseId")
        )
    }

    @Test func payloadSizeLimitsDependOnPushType() {
        let voipMax = Array(repeating: UInt8(ascii: "x"), count: 5120)
        #expect(outcome(request(body: voipMax)) == (200, ""))
        #expect(outcome(request(body: voipMax + [1])) == (413, "PayloadTooLarge"))
        let alertTooBig = Array(repeating: UInt8(ascii: "x"), count: 4097)
        #expect(
            outcome(request(headers: ["apns-topic": "com.example.app", "apns-push-type": "alert"], body: alertTooBig))
                == (413, "PayloadTooLarge"))
        #expect(outcome(request(body: [])) == (400, "PayloadEmpty"))
    }

    @Test func unknownOrUnregisteredDevices() {
        #expect(outcome(request(path: "/3/device/" + String(repeating: "0b", count: 32))) == (400, "BadDeviceToken"))
        #expect(outcome(request(path: "/3/device/zz")) == (400, "BadDeviceToken"))
        #expect(outcome(request(), unregisteredAt: now.addingTimeInterval(-60)) == (410, "Unregistered"))
    }

    @Test func verifiedProviderTokensAreRememberedAndStillAgeChecked() throws {
        let device = SandboxDevice(token: Self.token, bundleID: "com.example.app")
        var remembered: [String: APNsRequestValidator.VerifiedToken] = [:]
        let fresh = providerToken()
        _ = try validator.validate(
            request(headers: ["authorization": "bearer " + fresh]), keys: keys, device: { _ in device },
            now: now, remember: { remembered[$0] = $1 })
        #expect(remembered[fresh]?.keyID == "KEYID12345")
        #expect(remembered[fresh]?.teamID == "TEAMID1234")
        // A remembered token is not verified again (this one has no valid signature at all)...
        let forged = "not.a.jwt"
        let known = APNsRequestValidator.VerifiedToken(
            keyID: "KEYID12345", teamID: "TEAMID1234",
            issuedAt: Int64(now.timeIntervalSince1970))
        _ = try validator.validate(
            request(headers: ["authorization": "bearer " + forged]), keys: keys, device: { _ in device },
            now: now, verified: { $0 == forged ? known : nil })
        // ...but its age still counts, and its key must still belong to its team.
        #expect(throws: APNsRequestValidator.Rejection(status: 403, reason: "ExpiredProviderToken")) {
            try validator.validate(
                request(headers: ["authorization": "bearer " + forged]), keys: keys, device: { _ in device },
                now: now.addingTimeInterval(3601), verified: { _ in known })
        }
        var otherTeam = known
        otherTeam.teamID = "OTHERTEAM1"
        #expect(throws: APNsRequestValidator.Rejection(status: 403, reason: "InvalidProviderToken")) {
            try validator.validate(
                request(headers: ["authorization": "bearer " + forged]), keys: keys, device: { _ in device },
                now: now, verified: { _ in otherTeam })
        }
    }
}
