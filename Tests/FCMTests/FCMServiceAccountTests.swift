import FCM
import Foundation
import JWT
import Testing

/// Reading the service-account JSON: every field the grant needs, and a clear error naming what to fix,
/// never the file's content or its key, for every way the file can be wrong.
@Suite struct FCMServiceAccountTests {
    static let rsaKey = try! JWTSigningKey.generateRSA()
    static let rsaPEM = try! rsaKey.pkcs8PEM()

    /// A Google-shaped document, with `changes` applied (nil removes a field).
    static func document(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var object: [String: Any] = [
            "type": "service_account", "project_id": "ringer-demo-1a2b3",
            "private_key_id": "0123456789abcdef0123456789abcdef01234567", "private_key": rsaPEM,
            "client_email": "firebase-adminsdk-x1y2z@ringer-demo-1a2b3.iam.gserviceaccount.com",
            "client_id": "112233445566778899000", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com",
        ]
        for (key, value) in changes { object[key] = value }
        return object
    }

    static func json(_ changes: [String: Any?] = [:]) throws -> Data {
        try JSONSerialization.data(withJSONObject: document(changes))
    }

    @Test func readsEveryFieldTheGrantNeeds() throws {
        let account = try FCMServiceAccount(json: Self.json())
        #expect(account.projectID == "ringer-demo-1a2b3")
        #expect(account.privateKeyID == "0123456789abcdef0123456789abcdef01234567")
        #expect(account.clientEmail == "firebase-adminsdk-x1y2z@ringer-demo-1a2b3.iam.gserviceaccount.com")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.key.algorithm == .rs256)
        #expect(try account.key.publicKeyPEM() == Self.rsaKey.publicKeyPEM())
        #expect(account.source == nil)
    }

    @Test func readsAFileAndRemembersItsPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fcm-account-\(UUID().uuidString).json"
        ).path
        try Self.json().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let account = try FCMServiceAccount(contentsOfFile: path)
        #expect(account.projectID == "ringer-demo-1a2b3")
        #expect(account.source == path)
    }

    @Test func descriptionNeverShowsTheKey() throws {
        let account = try FCMServiceAccount(json: Self.json())
        let text = "\(account) \(String(reflecting: account.description))"
        #expect(text.contains("ringer-demo-1a2b3"))
        #expect(!text.contains("PRIVATE KEY"))
        #expect(!text.contains(String(Self.rsaPEM.split(separator: "\n")[1])))
    }

    @Test func contentThatIsNotJSONIsRefusedWithoutQuotingIt() throws {
        let secret = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
        let error = #expect(throws: FCMServiceAccountError.notJSON) {
            try FCMServiceAccount(json: Data(("not json " + secret).utf8), source: "/etc/ringer/fcm.json")
        }
        #expect(error?.description.contains("/etc/ringer/fcm.json") == true)
        #expect(error?.description.contains("MIIE") == false)
        #expect(error?.field == nil)
    }

    @Test func aJSONArrayIsNotAServiceAccount() {
        #expect(throws: FCMServiceAccountError.notJSON) { try FCMServiceAccount(json: Data("[1,2]".utf8)) }
        #expect(throws: FCMServiceAccountError.notJSON) { try FCMServiceAccount(json: Data()) }
    }

    @Test(arguments: ["type", "project_id", "private_key_id", "private_key", "client_email", "token_uri"])
    func missingFieldIsNamed(_ field: String) throws {
        let error = #expect(throws: FCMServiceAccountError.missingField(field)) {
            try FCMServiceAccount(json: Self.json([field: nil]))
        }
        #expect(error?.field == field)
        #expect(error?.description.contains(field) == true)
        // A field of the wrong type, or empty, is as good as missing.
        #expect(throws: FCMServiceAccountError.missingField(field)) {
            try FCMServiceAccount(json: Self.json([field: 42]))
        }
        #expect(throws: FCMServiceAccountError.missingField(field)) {
            try FCMServiceAccount(json: Self.json([field: ""]))
        }
    }

    @Test func userCredentialsAreNotAServiceAccount() {
        let error = #expect(throws: FCMServiceAccountError.notServiceAccount) {
            try FCMServiceAccount(json: Self.json(["type": "authorized_user"]))
        }
        #expect(error?.field == "type")
    }

    @Test func keyThatDoesNotParseIsRefusedWithoutQuotingIt() {
        let broken =
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
        let error = #expect(throws: FCMServiceAccountError.keyDoesNotParse) {
            try FCMServiceAccount(json: Self.json(["private_key": broken]))
        }
        #expect(error?.field == "private_key")
        #expect(error?.description.contains("MIIE") == false)
        #expect(throws: FCMServiceAccountError.keyDoesNotParse) {
            try FCMServiceAccount(json: Self.json(["private_key": "hunter2"]))
        }
    }

    @Test func ecKeyIsNotAnRSAKey() throws {
        let ec = try JWTSigningKey.generateP256().pkcs8PEM()
        #expect(throws: FCMServiceAccountError.notRSAKey) {
            try FCMServiceAccount(json: Self.json(["private_key": ec]))
        }
    }

    @Test(arguments: [
        "http://oauth2.googleapis.com/token", "ftp://localhost/token", "not a url", "/token",
        "https://user:pw@oauth2.googleapis.com/token", "http://127.0.0.1.evil.example/token",
    ])
    func tokenURIMustBeHTTPS(_ uri: String) {
        let error = #expect(throws: FCMServiceAccountError.badTokenURI) {
            try FCMServiceAccount(json: Self.json(["token_uri": uri]))
        }
        #expect(error?.field == "token_uri")
    }

    @Test(arguments: [
        "http://localhost:8443/token", "http://127.0.0.1:9/token", "http://[::1]:8080/token",
        "https://sandbox.local:8443/oauth2/token",
    ])
    func tokenURIMayBePlainHTTPOnlyToLoopback(_ uri: String) throws {
        #expect(try FCMServiceAccount(json: Self.json(["token_uri": uri])).tokenURI == uri)
    }

    @Test(arguments: ["a/b", "proj ect", "p?x", String(repeating: "p", count: 129)])
    func projectIDThatCannotBeAPathSegmentIsRefused(_ id: String) {
        #expect(throws: FCMServiceAccountError.invalidField("project_id")) {
            try FCMServiceAccount(json: Self.json(["project_id": id]))
        }
    }

    @Test func unreadableFileIsNamed() throws {
        let missing = "/nonexistent/ringer/fcm-\(UUID().uuidString).json"
        let error = #expect(throws: FCMServiceAccountError.unreadableFile) {
            try FCMServiceAccount(contentsOfFile: missing)
        }
        #expect(error?.description.contains(missing) == true)
        #expect(throws: FCMServiceAccountError.unreadableFile) {
            try FCMServiceAccount(contentsOfFile: FileManager.default.temporaryDirectory.path)
        }
    }

    @Test func accountFromPartsChecksTheSameRules() throws {
        let account = try FCMServiceAccount(
            projectID: "p1", privateKeyID: "k1", clientEmail: "a@p1.iam.gserviceaccount.com",
            tokenURI: "https://oauth2.googleapis.com/token", key: Self.rsaKey)
        #expect(account.projectID == "p1")
        #expect(throws: FCMServiceAccountError.missingField("client_email")) {
            try FCMServiceAccount(
                projectID: "p1", privateKeyID: "k1", clientEmail: "",
                tokenURI: "https://oauth2.googleapis.com/token", key: Self.rsaKey)
        }
        #expect(throws: FCMServiceAccountError.notRSAKey) {
            try FCMServiceAccount(
                projectID: "p1", privateKeyID: "k1", clientEmail: "a@b",
                tokenURI: "https://oauth2.googleapis.com/token", key: JWTSigningKey.generateP256())
        }
    }
}
