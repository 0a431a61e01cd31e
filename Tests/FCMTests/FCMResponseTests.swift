import FCM
import Foundation
import Testing

/// Reading FCM's answers (Google: "FCM HTTP v1 API: error handling", `google.rpc.Status`): the code from
/// the `FcmError` detail first, then from `error.status`; field violations; `ErrorInfo`; `Retry-After`; and
/// answers that are not JSON or carry no code, which still give a usable response.
@Suite struct FCMResponseTests {
    static func response(_ status: Int, _ body: String, retryAfter: String? = nil, now: Date = Date()) -> FCMResponse {
        FCMResponse(status: status, retryAfter: retryAfter, body: Array(body.utf8), now: now)
    }

    @Test func successCarriesTheMessageName() {
        let response = Self.response(200, #"{"name":"projects/p1/messages/0:1500415314455276%31bd1c9631bd1c96"}"#)
        #expect(response.isAccepted)
        #expect(response.name == "projects/p1/messages/0:1500415314455276%31bd1c9631bd1c96")
        #expect(response.error == nil)
        #expect(response.errorCode == nil)
    }

    @Test func unregisteredIsReadFromTheFcmErrorDetail() {
        let response = Self.response(
            404,
            """
            {"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
            """)
        #expect(
            response.error
                == FCMErrorBody(
                    code: 404, status: "NOT_FOUND", message: "Requested entity was not found.",
                    fcmErrorCode: .unregistered))
        #expect(response.errorCode == .unregistered)
        #expect(response.reason == "UNREGISTERED")
    }

    @Test func invalidArgumentCarriesItsFieldViolations() {
        let response = Self.response(
            400,
            """
            {"error":{"code":400,"message":"The registration token is not a valid FCM registration token",
            "status":"INVALID_ARGUMENT","details":[
            {"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[
              {"field":"message.token","description":"Invalid registration token"},
              {"field":"message.android.ttl","description":"Invalid duration"}]},
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}
            """)
        #expect(response.errorCode == .invalidArgument)
        #expect(
            response.error?.fieldViolations == [
                .init(field: "message.token", description: "Invalid registration token"),
                .init(field: "message.android.ttl", description: "Invalid duration"),
            ])
        #expect(response.namesTheToken)
    }

    @Test func firstFcmErrorDetailWins() {
        let response = Self.response(
            403,
            """
            {"error":{"code":403,"status":"PERMISSION_DENIED","details":[
            {"@type":"type.googleapis.com/google.rpc.Help"},
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"SENDER_ID_MISMATCH"},
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INTERNAL"}]}}
            """)
        #expect(response.errorCode == .senderIdMismatch)
    }

    @Test func withoutAnFcmErrorTheCodeComesFromTheStatus() {
        let unavailable = Self.response(503, #"{"error":{"code":503,"message":"x","status":"UNAVAILABLE"}}"#)
        #expect(unavailable.error?.fcmErrorCode == nil)
        #expect(unavailable.errorCode == .unavailable)
        let unauthenticated = Self.response(
            401,
            """
            {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}
            """)
        #expect(unauthenticated.errorCode == .unknown("UNAUTHENTICATED"))
        #expect(unauthenticated.reason == "UNAUTHENTICATED")
    }

    @Test func disabledAPIIsReadFromErrorInfo() {
        let response = Self.response(
            403,
            """
            {"error":{"code":403,"message":"Firebase Cloud Messaging API has not been used in project 1 before or it is disabled.",
            "status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
            "reason":"SERVICE_DISABLED","domain":"googleapis.com","metadata":{"service":"fcm.googleapis.com"}}]}}
            """)
        #expect(response.error?.errorInfoReason == "SERVICE_DISABLED")
        #expect(response.error?.fcmErrorCode == nil)
        #expect(response.errorCode == .unknown("PERMISSION_DENIED"))
        #expect(response.reason == "SERVICE_DISABLED")
    }

    @Test(arguments: [
        "<html>502 Bad Gateway</html>", "", "{", "[]", "null", #"{"unexpected":1}"#, #"{"error":"text"}"#,
    ])
    func answerThatIsNotAnErrorBodyKeepsItsStatus(_ body: String) {
        let response = Self.response(502, body)
        #expect(response.status == 502)
        #expect(response.error == nil)
        #expect(response.errorCode == nil)
        #expect(response.reason == "HTTP 502")
    }

    @Test func errorBodyWithoutACodeIsStillRead() {
        let response = Self.response(400, #"{"error":{"message":"something went wrong"}}"#)
        #expect(response.error?.message == "something went wrong")
        #expect(response.errorCode == nil)
        #expect(response.reason == "HTTP 400")
    }

    @Test func fieldsOfTheWrongTypeAreLeftOutNotFatal() {
        let response = Self.response(
            503,
            """
            {"error":{"code":"503","status":7,"message":["x"],"details":{"not":"a list"}}}
            """)
        #expect(response.error == FCMErrorBody())
        #expect(response.errorCode == nil)
    }

    @Test(arguments: [("7", 7.0), (" 120 ", 120), ("0", 0), ("99999999999", 86_400)])
    func retryAfterInSeconds(_ header: String, _ seconds: Double) {
        #expect(Self.response(503, "", retryAfter: header).retryAfter == seconds)
    }

    @Test func retryAfterAsAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 784_111_747)  // Sun, 06 Nov 1994 08:49:07 GMT
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(Self.response(429, "", retryAfter: form, now: now).retryAfter == 30, "\(form)")
        }
        // A date in the past means "now".
        #expect(Self.response(429, "", retryAfter: "Sun, 06 Nov 1994 08:48:00 GMT", now: now).retryAfter == 0)
    }

    @Test(arguments: [nil, "", "soon", "-5", "1.5", "Sun, 99 Nov 1994 08:49:37 GMT"])
    func unreadableRetryAfterIsNil(_ header: String?) {
        #expect(Self.response(503, "", retryAfter: header).retryAfter == nil)
    }

    @Test func errorCodesKeepGooglesSpelling() {
        let codes: [(FCMErrorCode, String, Int?)] = [
            (.unspecifiedError, "UNSPECIFIED_ERROR", nil), (.invalidArgument, "INVALID_ARGUMENT", 400),
            (.unregistered, "UNREGISTERED", 404), (.senderIdMismatch, "SENDER_ID_MISMATCH", 403),
            (.quotaExceeded, "QUOTA_EXCEEDED", 429), (.unavailable, "UNAVAILABLE", 503), (.internal, "INTERNAL", 500),
            (.thirdPartyAuthError, "THIRD_PARTY_AUTH_ERROR", 401),
        ]
        for (code, text, status) in codes {
            #expect(code.rawValue == text)
            #expect(FCMErrorCode(rawValue: text) == code)
            #expect(code.documentedStatus == status)
        }
        #expect(FCMErrorCode(rawValue: "NEW_CODE_2030") == .unknown("NEW_CODE_2030"))
        #expect(FCMErrorCode(rawValue: "unregistered") == .unknown("unregistered"))
        #expect(FCMErrorCode.unknown("X").documentedStatus == nil)
    }
}
