import APNs
import Foundation
import RingerStore
import RingerWire

/// Validates and stores device registrations (API.md "Devices"): register after login, unregister on logout.
struct DeviceRegistry: Sendable {
    let store: any RingerStore

    /// `PUT /v1/devices/{device_id}` for the authenticated user.
    /// - Returns: the stored device.
    /// - Throws: ``Problem`` 422 for a bad id, platform, token, environment or bundle id.
    func register(deviceID: String, user: Party, body: DeviceRegistration, now: Date) async throws -> Device {
        guard UserID.isValid(deviceID) else { throw APIProblem.invalidField("device_id is not a valid device id") }
        switch body.platform {
        case .ios:
            guard body.voipToken != nil || body.apnsToken != nil else {
                throw APIProblem.invalidField("an ios device needs voip_token or apns_token")
            }
            for (name, token) in [("voip_token", body.voipToken), ("apns_token", body.apnsToken)] {
                if let token, !APNsClient.isHexToken(token) {
                    throw APIProblem.invalidField("\(name) must be an even number of hex digits (at most 1024)")
                }
            }
            guard let bundle = body.bundleId, Self.isBundleID(bundle) else {
                throw APIProblem.invalidField("an ios device needs bundle_id, e.g. com.example.app")
            }
            guard !bundle.hasSuffix(".voip") else {
                throw APIProblem.invalidField("bundle_id is the app's own id; the .voip topic is derived from it")
            }
            if let environment = body.apnsEnvironment, environment != .sandbox, environment != .production {
                throw APIProblem.invalidField("apns_environment must be sandbox or production")
            }
            guard body.fcmToken == nil else { throw APIProblem.invalidField("fcm_token is for android devices") }
        case .android:
            guard let token = body.fcmToken, (1...4096).contains(token.utf8.count),
                  !token.contains(where: { $0.isWhitespace }) else {
                throw APIProblem.invalidField("an android device needs fcm_token")
            }
            guard body.voipToken == nil, body.apnsToken == nil, body.apnsEnvironment == nil else {
                throw APIProblem.invalidField("voip_token, apns_token and apns_environment are for ios devices")
            }
        default:
            throw APIProblem.invalidField("platform must be ios or android")
        }
        try await store.upsertUser(id: user.id, name: user.name, at: now)
        let device = Device(deviceId: deviceID, userId: user.id, platform: body.platform,
                            voipToken: body.voipToken?.lowercased(), apnsToken: body.apnsToken?.lowercased(),
                            apnsEnvironment: body.platform == .ios ? (body.apnsEnvironment ?? .production) : nil,
                            bundleId: body.bundleId, fcmToken: body.fcmToken, updatedAt: now)
        return try await store.registerDevice(device)
    }


    /// Reverse-DNS: letters, digits, `.` and `-`, with at least one dot.
    static func isBundleID(_ id: String) -> Bool {
        (3...155).contains(id.utf8.count) && id.contains(".") && !id.hasPrefix(".") && !id.hasSuffix(".")
            && id.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 46 || byte == 45
            }
    }
}
