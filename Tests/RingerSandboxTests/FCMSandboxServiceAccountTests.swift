import Foundation
import JWT
import RingerSandbox
import Testing

/// Service accounts the sandbox trusts: from Google's JSON file or from a public key, with clear errors for
/// files that cannot be used and never their key in an error.
@Suite struct FCMSandboxServiceAccountTests {
    @Test func aThrowAwayFileHasGooglesFieldsAndIsTrusted() throws {
        let json = try FCMSandboxServiceAccountFile.make(
            projectID: "ringer-dev", tokenURI: "https://localhost:2199/token")
        let fields = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        #expect(fields["type"] == "service_account")
        #expect(fields["client_email"] == "ringer-sandbox@ringer-dev.iam.gserviceaccount.com")
        #expect(fields["token_uri"] == "https://localhost:2199/token")
        #expect(fields["private_key_id"]?.count == 40)
        #expect(fields["private_key"]?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        let account = try FCMSandboxServiceAccount(serviceAccountJSON: json)
        #expect(account.projectIDs == ["ringer-dev"])
        #expect(account.keyID == fields["private_key_id"])
        #expect(account.tokenURI == "https://localhost:2199/token")
    }

    @Test func filesThatCannotBeUsedNameTheFieldAndNeverTheKey() throws {
        let good = try #require(
            try JSONSerialization.jsonObject(
                with: try FCMSandboxServiceAccountFile.make(projectID: "p", tokenURI: "https://localhost/token"))
                as? [String: String])
        func refusal(_ change: (inout [String: String]) -> Void) -> FCMSandboxError? {
            var fields = good
            change(&fields)
            let data = try! JSONSerialization.data(withJSONObject: fields)
            do {
                _ = try FCMSandboxServiceAccount(serviceAccountJSON: data)
                return nil
            } catch {
                return error as? FCMSandboxError
            }
        }
        #expect(refusal { $0["client_email"] = nil }?.detail.contains("client_email") == true)
        #expect(refusal { $0["type"] = "authorized_user" } == .invalidServiceAccount)
        #expect(refusal { $0["project_id"] = "" }?.detail.contains("project_id") == true)
        let garbled = try #require(
            refusal { $0["private_key"] = "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n" })
        #expect(garbled == .invalidKey)
        #expect(!garbled.description.contains("BEGIN"))
        let ec = try JWTSigningKey.generateP256().pkcs8PEM()
        #expect(refusal { $0["private_key"] = ec } == .invalidKey)
        #expect(throws: FCMSandboxError.invalidServiceAccount) {
            try FCMSandboxServiceAccount(serviceAccountJSON: Data("not json".utf8))
        }
    }

    @Test func anAccountMayBeTrustedByItsPublicKeyForSeveralProjects() throws {
        let key = try JWTSigningKey.generateRSA()
        let account = try FCMSandboxServiceAccount(
            clientEmail: "a@p.iam.gserviceaccount.com", keyID: "k1",
            publicKeyPEM: try key.publicKeyPEM(), projectID: "p",
            otherProjectIDs: ["q"])
        #expect(account.projectIDs == ["p", "q"])
        #expect(account.tokenURI == nil)
        #expect(throws: FCMSandboxError.invalidServiceAccount) {
            try FCMSandboxServiceAccount(
                clientEmail: "", keyID: "k1", publicKeyPEM: try key.publicKeyPEM(), projectID: "p")
        }
    }
}
