import Foundation
import Testing

@testable import RingerSandbox

/// FCM HTTP v1 `messages:send` rules as the sandbox applies them, one rule per test.
@Suite struct FCMRequestValidatorTests {
    static let token = "fcm-token-1:APA91bH_valid"
    static let accessToken = "ya29.sandbox"
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = FCMRequestValidator()

    var issued: FCMAccessTokens.Issued {
        .init(
            grant: .init(
                clientEmail: "ringer@ringer-dev.iam.gserviceaccount.com", projectIDs: ["ringer-dev"],
                scopes: ["https://www.googleapis.com/auth/firebase.messaging"]),
            expiresAt: now.addingTimeInterval(600))
    }

    func request(
        _ body: String, project: String = "ringer-dev", method: String = "POST",
        authorization: String? = "Bearer " + FCMRequestValidatorTests.accessToken
    ) -> FCMRequestValidator.Request {
        var headers = ["content-type": "application/json"]
        headers["authorization"] = authorization
        return .init(
            method: method, path: "/v1/projects/\(project)/messages:send", headers: headers, body: Array(body.utf8))
    }

    /// A send of `message` (the JSON inside `"message"`) to the test token.
    func message(_ fields: String = "", token: String = FCMRequestValidatorTests.token) -> String {
        #"{"message": {"token": "\#(token)"\#(fields.isEmpty ? "" : ", " + fields)}}"#
    }

    func outcome(
        _ request: FCMRequestValidator.Request, issued: FCMAccessTokens.Issued? = nil,
        device: FCMSandboxDevice? = nil
    ) -> Result<FCMRequestValidator.Accepted, FCMSandboxRejection> {
        let grant = issued ?? self.issued
        let known =
            device ?? FCMSandboxDevice(token: Self.token, projectID: "ringer-dev", packageName: "dev.ringer.demo")
        do {
            return .success(
                try validator.validate(
                    request, accessToken: { $0 == Self.accessToken ? grant : nil },
                    device: { $0 == known.token ? known : nil }, now: now))
        } catch {
            return .failure(error)
        }
    }

    func rejection(
        _ request: FCMRequestValidator.Request, issued: FCMAccessTokens.Issued? = nil,
        device: FCMSandboxDevice? = nil
    ) -> FCMSandboxRejection? {
        if case .failure(let rejection) = outcome(request, issued: issued, device: device) { return rejection }
        return nil
    }

    func accepted(_ request: FCMRequestValidator.Request) -> FCMRequestValidator.Accepted? {
        try? outcome(request).get()
    }

    @Test func highPriorityDataMessageIsAccepted() throws {
        let result = try #require(
            accepted(
                request(
                    message(
                        #""data": {"ringer": "{}"}, "android": {"priority": "HIGH", "ttl": "30s", "collapse_key": "call"}"#
                    ))))
        #expect(result.target == .token(Self.token))
        #expect(result.data == ["ringer": "{}"])
        #expect(result.priority == .high)
        #expect(result.ttl == 30)
        #expect(result.collapseKey == "call")
        #expect(result.projectID == "ringer-dev")
        #expect(!result.validateOnly)
    }

    @Test func onlyPostToMessagesSendExists() {
        #expect(rejection(request(message(), method: "GET"))?.httpStatus == 404)
        let other = FCMRequestValidator.Request(
            method: "POST", path: "/v1/projects/p/messages:batch",
            headers: ["authorization": "Bearer " + Self.accessToken], body: [])
        #expect(rejection(other) == .noSuchMethod)
        #expect(FCMRequestValidator.project(inPath: "/v1/projects/a/b/messages:send") == nil)
        #expect(FCMRequestValidator.project(inPath: "/v1/projects//messages:send") == nil)
    }

    @Test func aMissingUnknownOrExpiredAccessTokenIsUnauthenticatedWithoutFcmError() throws {
        let missing = try #require(rejection(request(message(), authorization: nil)))
        #expect(missing == .missingCredentials)
        #expect(missing.httpStatus == 401 && missing.status == "UNAUTHENTICATED" && missing.errorCode == nil)
        #expect(rejection(request(message(), authorization: "Bearer ya29.forged")) == .unauthenticated)
        #expect(rejection(request(message(), authorization: "Basic " + Self.accessToken)) == .unauthenticated)
        var expired = issued
        expired.expiresAt = now
        let late = try #require(rejection(request(message()), issued: expired))
        #expect(late == .unauthenticated && late.errorCode == nil)
    }

    @Test func anAccessTokenNeedsAMessagingScopeAndTheProject() throws {
        var narrow = issued
        narrow.grant.scopes = ["https://www.googleapis.com/auth/userinfo.email"]
        let scope = try #require(rejection(request(message()), issued: narrow))
        #expect(scope.httpStatus == 403 && scope.errorInfo?.reason == "ACCESS_TOKEN_SCOPE_INSUFFICIENT")
        var cloud = issued
        cloud.grant.scopes = ["https://www.googleapis.com/auth/cloud-platform"]
        #expect((try? outcome(request(message()), issued: cloud).get()) != nil)
        let other = try #require(rejection(request(message(), project: "someone-else")))
        #expect(other.httpStatus == 403 && other.status == "PERMISSION_DENIED" && other.errorCode == nil)
        #expect(other.errorInfo?.reason == "IAM_PERMISSION_DENIED")
    }

    @Test func theBodyMustBeJSONWithAMessage() throws {
        let garbage = try #require(rejection(request("not json")))
        #expect(garbage.httpStatus == 400 && garbage.errorCode == nil)
        #expect(rejection(request("[1]"))?.status == "INVALID_ARGUMENT")
        let empty = try #require(rejection(request("{}")))
        #expect(empty.errorCode == "INVALID_ARGUMENT" && empty.fieldViolations.first?.field == "message")
        let scalar = try #require(rejection(request(#"{"message": "hi"}"#)))
        #expect(scalar.errorCode == nil && scalar.fieldViolations.first?.field == "message")
    }

    @Test func unknownFieldsAreRefusedByName() throws {
        let top = try #require(rejection(request(#"{"message": {"token": "t"}, "dry_run": true}"#)))
        #expect(top.message == #"Invalid JSON payload received. Unknown name "dry_run": Cannot find field."#)
        #expect(top.errorCode == nil)
        let inner = try #require(rejection(request(message(#""android": {"prio": "HIGH"}"#))))
        #expect(
            inner.message
                == #"Invalid JSON payload received. Unknown name "prio" at 'message.android': Cannot find field."#)
        #expect(inner.fieldViolations.first?.field == "message.android")
    }

    @Test func camelCaseAndSnakeCaseNamesAreBothAccepted() throws {
        let camel = try #require(
            accepted(
                request(
                    #"{"validateOnly": true, "message": {"token": "\#(Self.token)", "android": {"collapseKey": "k", "restrictedPackageName": "dev.ringer.demo"}}}"#
                )))
        #expect(camel.validateOnly && camel.collapseKey == "k")
    }

    @Test func exactlyOneOfTokenTopicOrConditionIsSet() throws {
        let none = try #require(rejection(request(#"{"message": {"data": {"a": "b"}}}"#)))
        #expect(none.errorCode == "INVALID_ARGUMENT" && none.message == "Recipient of the message is not set.")
        let two = try #require(rejection(request(#"{"message": {"token": "\#(Self.token)", "topic": "news"}}"#)))
        #expect(two.httpStatus == 400 && two.message.contains("Oneof field 'target' is already set"))
        #expect(accepted(request(#"{"message": {"topic": "/topics/news"}}"#))?.target == .topic("news"))
        #expect(
            accepted(request(#"{"message": {"condition": "'a' in topics"}}"#))?.target == .condition("'a' in topics"))
        #expect(accepted(request(#"{"message": {"fid": "\#(Self.token)"}}"#))?.target == .token(Self.token))
        #expect(rejection(request(#"{"message": {"fid": "nope"}}"#))?.fieldViolations.first?.field == "message.fid")
        #expect(
            rejection(request(#"{"message": {"fid": "\#(Self.token)", "token": "\#(Self.token)"}}"#))?.errorCode == nil)
        #expect(
            rejection(request(#"{"message": {"topic": "bad topic!"}}"#))?.fieldViolations.first?.field
                == "message.topic")
    }

    @Test func dataValuesMustBeStrings() throws {
        let number = try #require(rejection(request(message(#""data": {"a": "x", "b": 5}"#))))
        #expect(number.message == "Invalid value at 'message.data[1].value' (TYPE_STRING), 5")
        #expect(number.errorCode == nil && number.fieldViolations.first?.field == "message.data[1].value")
        #expect(
            rejection(request(message(#""data": {"a": true}"#)))?.fieldViolations.first?.field
                == "message.data[0].value")
        #expect(rejection(request(message(#""data": {"a": {"b": "c"}}"#))) != nil)
        #expect(rejection(request(message(#""data": "text""#)))?.status == "INVALID_ARGUMENT")
    }

    @Test(arguments: ["from", "notification", "message_type", "google.c.a", "gcm.notification.x", "GoogleAnything"])
    func reservedDataKeysAreRefused(key: String) throws {
        let refused = try #require(rejection(request(message(#""data": {"\#(key)": "v"}"#))))
        #expect(refused.errorCode == "INVALID_ARGUMENT")
        #expect(refused.fieldViolations.first?.field == "message.data")
    }

    @Test func androidDataOverridesMessageDataAndIsCheckedTheSame() throws {
        let result = try #require(accepted(request(message(#""data": {"a": "1"}, "android": {"data": {"b": "2"}}"#))))
        #expect(result.data == ["b": "2"])
        #expect(
            rejection(request(message(#""android": {"data": {"from": "x"}}"#)))?.fieldViolations.first?.field
                == "message.android.data")
    }

    @Test func priorityIsHighOrNormalWithGooglesDefault() throws {
        #expect(accepted(request(message(#""android": {"priority": "NORMAL"}"#)))?.priority == .normal)
        // firebase-admin sends the names in lower case, and FCM takes them.
        #expect(accepted(request(message(#""android": {"priority": "high"}"#)))?.priority == .high)
        let urgent = try #require(rejection(request(message(#""android": {"priority": "URGENT"}"#))))
        #expect(urgent.errorCode == nil && urgent.fieldViolations.first?.field == "message.android.priority")
        #expect(rejection(request(message(#""android": {"priority": 1}"#))) != nil)
        // Google: data messages default to NORMAL, messages with a notification to HIGH.
        #expect(accepted(request(message(#""data": {"a": "b"}"#)))?.priority == .normal)
        #expect(accepted(request(message(#""notification": {"title": "Missed call"}"#)))?.priority == .high)
        #expect(accepted(request(message(#""android": {"notification": {"channel_id": "calls"}}"#)))?.priority == .high)
    }

    @Test func ttlIsADurationFrom0To28Days() throws {
        #expect(accepted(request(message(#""android": {"ttl": "3.5s"}"#)))?.ttl == 3.5)
        #expect(accepted(request(message(#""android": {"ttl": "0s"}"#)))?.ttl == 0)
        #expect(accepted(request(message(#""android": {"ttl": "2419200s"}"#)))?.ttl == 2_419_200)
        #expect(accepted(request(message(#""android": {"ttl": "0.000000001s"}"#)))?.ttl == 0.000000001)
        #expect(accepted(request(message()))?.ttl == 2_419_200)
        for malformed in [#""30""#, #""30 s""#, #""s""#, #""1.s""#, #""1.1234567890s""#, "30", #""abc""#, #""+3s""#] {
            let refused = try #require(
                rejection(request(message(#""android": {"ttl": \#(malformed)}"#))), "\(malformed)")
            #expect(refused.errorCode == nil, "\(malformed)")
            #expect(
                refused.message.hasPrefix(
                    "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)"))
        }
        for outOfRange in ["2419201s", "-1s"] {
            let refused = try #require(rejection(request(message(#""android": {"ttl": "\#(outOfRange)"}"#))))
            #expect(
                refused.errorCode == "INVALID_ARGUMENT" && refused.fieldViolations.first?.field == "message.android.ttl"
            )
        }
    }

    @Test func thePayloadLimitCountsUTF8BytesOfKeysAndValues() throws {
        // 4 key bytes + 4092 value bytes = 4096: the most FCM takes.
        let fits = String(repeating: "x", count: 4092)
        #expect(accepted(request(message(#""data": {"pad1": "\#(fits)"}"#))) != nil)
        let over = try #require(rejection(request(message(#""data": {"pad1": "\#(fits)y"}"#))))
        #expect(over.errorCode == "INVALID_ARGUMENT" && over.message == "Android message is too big")
        // "é" is 2 UTF-8 bytes: 2046 of them plus the 4-byte key is 4096.
        #expect(accepted(request(message(#""data": {"pad1": "\#(String(repeating: "é", count: 2046))"}"#))) != nil)
        #expect(rejection(request(message(#""data": {"pad1": "\#(String(repeating: "é", count: 2047))"}"#))) != nil)
        #expect(FCMRequestValidator.dataBytes(["ab": "cdé"]) == 6)
    }

    @Test func anUnknownTokenIsAnInvalidArgumentNamingMessageToken() throws {
        let unknown = try #require(rejection(request(message(token: "never-issued"))))
        #expect(unknown.httpStatus == 400 && unknown.errorCode == "INVALID_ARGUMENT")
        #expect(unknown.message == "The registration token is not a valid FCM registration token")
        #expect(unknown.fieldViolations == [.init(field: "message.token", description: "Invalid registration token")])
        #expect(rejection(request(message(token: "")))?.fieldViolations.first?.field == "message.token")
        #expect(rejection(request(#"{"message": {"token": 42}}"#))?.errorCode == nil)
    }

    @Test func aTokenOfAnotherProjectIsSenderIDMismatch() {
        let foreign = FCMSandboxDevice(token: Self.token, projectID: "other-project")
        #expect(rejection(request(message()), device: foreign) == .senderIDMismatch)
        #expect(FCMSandboxRejection.senderIDMismatch.httpStatus == 403)
    }

    @Test func anUnregisteredTokenIsUnregistered() {
        var gone = FCMSandboxDevice(token: Self.token, projectID: "ringer-dev")
        gone.unregisteredAt = now.addingTimeInterval(-60)
        #expect(rejection(request(message()), device: gone) == .unregistered)
        #expect(
            FCMSandboxRejection.unregistered.httpStatus == 404 && FCMSandboxRejection.unregistered.status == "NOT_FOUND"
        )
    }

    @Test func aRestrictedPackageNameMustMatchTheTokensApp() throws {
        #expect(accepted(request(message(#""android": {"restricted_package_name": "dev.ringer.demo"}"#))) != nil)
        let mismatch = try #require(
            rejection(request(message(#""android": {"restricted_package_name": "com.other"}"#))))
        #expect(mismatch.httpStatus == 400 && mismatch.errorCode == "INVALID_ARGUMENT")
        // It must not name message.token: a sender would delete a token that still works.
        #expect(mismatch.fieldViolations.first?.field == "message.android.restricted_package_name")
    }

    @Test func validateOnlyIsCheckedLikeASend() throws {
        #expect(
            accepted(request(#"{"validate_only": true, "message": {"token": "\#(Self.token)"}}"#))?.validateOnly == true
        )
        #expect(
            rejection(request(#"{"validate_only": true, "message": {"token": "nope"}}"#)) == .invalidRegistrationToken)
        #expect(
            rejection(request(#"{"validate_only": "yes", "message": {"token": "\#(Self.token)"}}"#))?.errorCode == nil)
    }

    @Test func notificationFieldsAreStrings() throws {
        let result = try #require(
            accepted(request(message(#""notification": {"title": "Missed call", "body": "Alice"}"#))))
        #expect(result.notification == .init(title: "Missed call", body: "Alice"))
        #expect(
            rejection(request(message(#""notification": {"title": 3}"#)))?.fieldViolations.first?.field
                == "message.notification.title")
        #expect(rejection(request(message(#""notification": {"subtitle": "x"}"#))) != nil)
    }

    @Test func errorBodiesHaveGooglesShape() throws {
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(FCMSandboxRejection.invalidRegistrationToken.body))
                as? [String: Any])
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["code"] as? Int == 400)
        #expect(error["status"] as? String == "INVALID_ARGUMENT")
        #expect(error["message"] as? String == "The registration token is not a valid FCM registration token")
        let details = try #require(error["details"] as? [[String: Any]])
        #expect(details.count == 2)
        #expect(details[0]["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
        #expect(details[0]["errorCode"] as? String == "INVALID_ARGUMENT")
        #expect(details[1]["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest")
        let violations = try #require(details[1]["fieldViolations"] as? [[String: String]])
        #expect(violations == [["field": "message.token", "description": "Invalid registration token"]])
        let unauthenticated = try #require(
            try JSONSerialization.jsonObject(with: Data(FCMSandboxRejection.unauthenticated.body)) as? [String: Any])
        #expect((unauthenticated["error"] as? [String: Any])?["details"] == nil)
        let disabled = try #require(
            try JSONSerialization.jsonObject(with: Data(FCMSandboxRejection.serviceDisabled(project: "p").body))
                as? [String: Any])
        let info = try #require(((disabled["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first)
        #expect(
            info["@type"] as? String == "type.googleapis.com/google.rpc.ErrorInfo"
                && info["reason"] as? String == "SERVICE_DISABLED")
    }

    @Test(arguments: [
        ("INVALID_ARGUMENT", 400, "INVALID_ARGUMENT"), ("UNREGISTERED", 404, "NOT_FOUND"),
        ("SENDER_ID_MISMATCH", 403, "PERMISSION_DENIED"), ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED"),
        ("UNAVAILABLE", 503, "UNAVAILABLE"), ("INTERNAL", 500, "INTERNAL"),
        ("THIRD_PARTY_AUTH_ERROR", 401, "UNAUTHENTICATED"),
    ])
    func everyFCMErrorCodeHasGooglesHTTPStatus(code: String, httpStatus: Int, status: String) throws {
        let rejection = try #require(FCMSandboxRejection(code: code))
        #expect(rejection.httpStatus == httpStatus && rejection.status == status && rejection.errorCode == code)
        #expect(rejection.code == code)
    }
}
