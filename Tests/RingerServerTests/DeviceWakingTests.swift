import APNs
import FCM
import Foundation
import JWT
import RingerWire
import Testing

@testable import RingerServer

/// The one "can this device be woken" rule (`Device.ringingToken`): what the call machine is told, and the
/// token each provider's ringing push is built for.
@Suite struct DeviceWakingTests {
    static let voip = String(repeating: "ab", count: 32)
    static let apnsToken = String(repeating: "cd", count: 32)
    static let updated = Date(timeIntervalSince1970: 1_800_000_000)

    static func iPhone(
        voip: String? = Self.voip, apns: String? = Self.apnsToken, bundle: String? = "com.example.app"
    ) -> Device {
        Device(
            deviceID: "iphone", userID: "bob", platform: .ios, voipToken: voip, apnsToken: apns,
            apnsEnvironment: .sandbox, bundleID: bundle, updatedAt: updated)
    }

    static func pixel(fcm: String? = "fcm-token-1") -> Device {
        Device(deviceID: "pixel", userID: "bob", platform: .android, fcmToken: fcm, updatedAt: updated)
    }

    @Test func anIPhoneRingsThroughItsVoIPTokenOnlyWithItsBundleID() {
        #expect(Self.iPhone().ringingToken.map { "\($0.kind.rawValue)=\($0.value)" } == "voip_token=\(Self.voip)")
        #expect(Self.iPhone().canBeWoken)
        // The ordinary APNs token cannot ring: only a VoIP push lets the app report a call.
        #expect(Self.iPhone(voip: nil).ringingToken == nil)
        #expect(!Self.iPhone(voip: nil).canBeWoken)
        // No bundle id, no `<bundle_id>.voip` topic.
        #expect(!Self.iPhone(bundle: nil).canBeWoken)
    }

    @Test func anAndroidPhoneRingsThroughItsFCMToken() {
        #expect(Self.pixel().ringingToken.map { "\($0.kind.rawValue)=\($0.value)" } == "fcm_token=fcm-token-1")
        #expect(!Self.pixel(fcm: nil).canBeWoken)
    }

    @Test func aDeviceOfAnotherPlatformNeverCountsAsWakeableWhateverTokensItHolds() {
        let web = Device(
            deviceID: "web", userID: "bob", platform: "web", voipToken: Self.voip, apnsToken: Self.apnsToken,
            bundleID: "com.example.app", fcmToken: "fcm-token-1", updatedAt: Self.updated)
        #expect(!web.canBeWoken)
        // Tokens of the other platform do not count either.
        var androidWithVoIP = Self.iPhone()
        androidWithVoIP.platform = .android
        #expect(!androidWithVoIP.canBeWoken)
    }

    /// The devices the machine rings are exactly those a ringing push can be built for, through the same token.
    @Test func aRingingPushIsBuiltExactlyForTheDevicesTheRuleCallsWakeable() throws {
        let apns = APNsPushSender(
            client: try APNsClient(
                configuration: .init(
                    credentials: .init(key: try JWTSigningKey.generateP256(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
                )))
        defer { apns.client.shutdown() }
        let account = try FCMServiceAccount(
            projectID: "ringer-demo", privateKeyID: "kid",
            clientEmail: "sender@ringer-demo.iam.gserviceaccount.com",
            tokenURI: "https://oauth2.googleapis.com/token", key: try JWTSigningKey.generateRSA())
        let fcm = FCMPushSender(client: try FCMClient(configuration: .init(serviceAccounts: [account])))
        defer { fcm.client.shutdown() }
        let devices = [
            Self.iPhone(), Self.iPhone(voip: nil), Self.iPhone(bundle: nil), Self.pixel(), Self.pixel(fcm: nil),
        ]
        let call = Call(
            callID: UUID().uuidString.lowercased(), state: .ringing, caller: Party(id: "alice"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: Self.updated,
            expiresAt: Self.updated.addingTimeInterval(45))
        for device in devices {
            let request = PushRequest(.ring, call: call, device: device, now: Self.updated)
            let built: (kind: PushTokenKind, value: String)? =
                if device.platform == .ios {
                    try apns.message(for: request).map { apns.token(of: $0) }
                } else {
                    try fcm.message(for: request).map { fcm.token(of: $0) }
                }
            #expect(
                built.map { "\($0.kind.rawValue)=\($0.value)" }
                    == device.ringingToken.map { "\($0.kind.rawValue)=\($0.value)" },
                "\(device)")
        }
    }
}
