import Foundation
import RingerHTTP
import Testing

@testable import RingerSandbox

/// Certificate-based authentication (Apple: "Establishing a certificate-based connection to APNs"), as the
/// validator applies it to a request whose connection presented a verified client certificate.
@Suite struct APNsRequestValidatorCertificateTests {
    static let token = String(repeating: "0a", count: 32)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = APNsRequestValidator()

    func outcome(
        certificate: HTTPRequest.ClientCertificate?, headers: [String: String] = [:],
        removing: [String] = []
    ) -> (Int, String) {
        var all = ["apns-topic": "com.example.app.voip", "apns-push-type": "voip"]
        all.merge(headers) { $1 }
        for name in removing { all[name] = nil }
        let request = APNsRequestValidator.Request(
            method: "POST", path: "/3/device/" + Self.token, headers: all,
            body: Array(#"{"ringer":{}}"#.utf8), clientCertificate: certificate)
        let device = SandboxDevice(token: Self.token, bundleID: "com.example.app")
        do {
            _ = try validator.validate(request, keys: [:], device: { $0 == Self.token ? device : nil }, now: now)
            return (200, "")
        } catch let rejection as APNsRequestValidator.Rejection {
            return (rejection.status, rejection.reason)
        } catch {
            return (0, "\(error)")
        }
    }

    func certificate(
        uid: String? = "com.example.app", validFor seconds: Int64 = 86_400
    ) -> HTTPRequest.ClientCertificate {
        HTTPRequest.ClientCertificate(subjectUID: uid, notAfter: Int64(now.timeIntervalSince1970) + seconds)
    }

    @Test func certificateReplacesTheProviderToken() {
        #expect(outcome(certificate: certificate()) == (200, ""))
        #expect(
            outcome(certificate: certificate(), headers: ["apns-topic": "com.example.app", "apns-push-type": "alert"])
                == (200, ""))
        // The header is not looked at on a certificate connection, even when it holds no valid token.
        #expect(outcome(certificate: certificate(), headers: ["authorization": "bearer not.a.jwt"]) == (200, ""))
        #expect(outcome(certificate: nil) == (403, "MissingProviderToken"))
    }

    @Test func topicMustBeTheCertificatesAppOrOneOfItsSuffixes() {
        #expect(outcome(certificate: certificate(uid: "com.other.app")) == (400, "TopicDisallowed"))
        #expect(
            outcome(certificate: certificate(), headers: ["apns-topic": "com.example.app.voip.extra"])
                == (400, "TopicDisallowed"))
        #expect(outcome(certificate: certificate(), removing: ["apns-topic"]) == (400, "MissingTopic"))
        // A covered topic still has to suit the device and the push type.
        #expect(
            outcome(
                certificate: certificate(),
                headers: [
                    "apns-topic": "com.example.app.complication",
                    "apns-push-type": "complication",
                ])
                == (400, "DeviceTokenNotForTopic"))
        #expect(
            outcome(certificate: certificate(), headers: ["apns-topic": "com.example.app"]) == (400, "InvalidPushType"))
    }

    @Test func certificateWithoutUIDOrPastItsEndIsBad() {
        #expect(outcome(certificate: certificate(uid: nil)) == (403, "BadCertificate"))
        #expect(outcome(certificate: certificate(uid: "")) == (403, "BadCertificate"))
        #expect(outcome(certificate: certificate(validFor: -1)) == (403, "BadCertificate"))
    }
}
