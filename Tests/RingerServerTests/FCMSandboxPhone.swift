import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerWire

/// An Android device reduced to what the server and FCM see of it, for tests that only need the server's FCM
/// messages to arrive somewhere: a Firebase-shaped registration token, registered with the stack's FCM sandbox as an
/// in-process ``FCMSandboxDevice`` (accepted messages go to its `deliver` closure) and with the server as the user's
/// Android device. No app runs: a test that needs one uses an Android phone in the phone host
/// (`LocalStack.androidPhone`).
enum FCMSandboxPhone {
    /// Registers the device with the FCM sandbox and the server.
    /// - Parameters:
    ///   - stack: the stack whose sandbox and server it joins.
    ///   - userID: the user it belongs to (a token is minted for the registration).
    ///   - deviceID: its device id on the server.
    ///   - deliver: what the phone makes of each message FCM hands it; a receipt FCM keeps as the message's fate.
    /// - Returns: its registration token.
    /// - Throws: ``RingerAPIError`` when the token cannot be minted or the server refuses the registration.
    static func register(
        on stack: LocalStack, user userID: String, deviceID: String,
        deliver: @escaping @Sendable (FCMSandboxMessage) async -> FCMSandboxReceipt = { _ in .silent }
    ) async throws -> String {
        let token = Self.randomBase64URL(22) + ":APA91b" + Self.randomBase64URL(134)
        stack.fcmSandbox.register(
            FCMSandboxDevice(token: token, projectID: LocalStack.firebaseProject, deliver: deliver))
        let api = RingerAPIClient(
            baseURL: stack.serverURL, userToken: try await stack.userToken(for: userID, name: nil))
        _ = try await api.registerDevice(id: deviceID, DeviceRegistration(platform: .android, fcmToken: token))
        return token
    }

    /// The call id of a ringing message (`call.incoming` in its `ringer` data value), nil for any other.
    static func ringingCallID(_ message: FCMSandboxMessage) -> String? {
        guard let ringer = message.data["ringer"],
            let object = (try? JSONSerialization.jsonObject(with: Data(ringer.utf8))) as? [String: Any],
            object["type"] as? String == EventType.callIncoming.rawValue
        else { return nil }
        return object["call_id"] as? String
    }

    /// `count` random characters of base64url's alphabet, as Firebase's tokens are made of.
    private static func randomBase64URL(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<count).map { _ in alphabet.randomElement()! })
    }
}
