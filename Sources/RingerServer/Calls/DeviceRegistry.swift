import APNs
import FCM
import Foundation
import RingerStore
import RingerWire

/// Validates and stores device registrations (docs/openapi.yaml `/v1/devices`): register after login, unregister on logout.
struct DeviceRegistry: Sendable {
    let store: any RingerStore
    /// The Firebase projects the server sends through (`--fcm-service-account`, the default first, then the push
    /// providers'), asked at each registration; empty when FCM is not configured, and then any well-formed
    /// `fcm_project_id` is stored for later.
    var fcmProjects: @Sendable () -> [String] = { [] }

    /// `PUT /v1/devices/{device_id}` for the authenticated user.
    /// - Returns: the stored device.
    /// - Throws: ``Problem`` 422 for a bad id, platform, token, environment, bundle id or readiness report
    ///   (``readiness(_:now:)``). Nothing is stored then: the device keeps its last registration.
    func register(deviceID: String, user: Party, body: DeviceRegistration, now: Date) async throws -> Device {
        guard Identifier.isValid(deviceID) else { throw APIProblem.invalidDeviceID() }
        let readiness = try body.readiness.map { try Self.readiness($0, now: now) }
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
            guard let bundle = body.bundleID, Self.isBundleID(bundle) else {
                throw APIProblem.invalidField("an ios device needs bundle_id, e.g. com.example.app")
            }
            guard !bundle.hasSuffix(".voip") else {
                throw APIProblem.invalidField("bundle_id is the app's own id; the .voip topic is derived from it")
            }
            if let environment = body.apnsEnvironment, environment != .sandbox, environment != .production {
                throw APIProblem.invalidField("apns_environment must be sandbox or production")
            }
            guard body.fcmToken == nil, body.fcmProjectID == nil else {
                throw APIProblem.invalidField("fcm_token and fcm_project_id are for android devices")
            }
        case .android:
            guard let token = body.fcmToken else { throw APIProblem.invalidField("an android device needs fcm_token") }
            guard FCMClient.isPlausibleRegistrationToken(token) else {
                throw APIProblem.invalidField("fcm_token must be 1 to 4096 of the characters A-Z a-z 0-9 - _ : .")
            }
            if let project = body.fcmProjectID {
                guard FCMServiceAccount.isUsableProjectID(project) else {
                    throw APIProblem.invalidField(
                        "fcm_project_id must be a Firebase project id: at most 128 letters, digits, '-', '.', ':' or '_'"
                    )
                }
                let known = fcmProjects()
                guard known.isEmpty || known.contains(project) else {
                    throw APIProblem.invalidField(
                        "fcm_project_id \(project) is not one of the server's Firebase projects")
                }
            }
            guard body.voipToken == nil, body.apnsToken == nil, body.apnsEnvironment == nil else {
                throw APIProblem.invalidField("voip_token, apns_token and apns_environment are for ios devices")
            }
        default:
            throw APIProblem.invalidField("platform must be ios or android")
        }
        try await store.upsertUser(id: user.id, name: user.name, at: now)
        let device = Device(
            deviceID: deviceID, userID: user.id, platform: body.platform,
            voipToken: body.voipToken?.lowercased(), apnsToken: body.apnsToken?.lowercased(),
            apnsEnvironment: body.platform == .ios ? (body.apnsEnvironment ?? .production) : nil,
            bundleID: body.bundleID, fcmToken: body.fcmToken,
            fcmProjectID: body.platform == .android ? body.fcmProjectID : nil, updatedAt: now,
            readiness: readiness)
        return try await store.registerDevice(device)
    }

    /// The readiness report as stored: its problems de-duplicated and sorted, stamped with the server's time.
    ///
    /// Names this server does not know are kept (a newer SDK's); a name that is not lowercase snake_case of
    /// 1…64 characters, or more than ``DeviceReadiness/maxProblems`` names as sent, is refused with 422
    /// `invalid-field`, as every other unacceptable value of a registration is (a `readiness` of the wrong
    /// JSON shape never gets here: it is a 400 `malformed-request` from decoding). The cap counts names as
    /// sent, duplicates included, because that is what docs/openapi.yaml's `maxItems` can say.
    /// - Throws: ``Problem`` 422.
    static func readiness(_ reported: DeviceReadiness, now: Date) throws -> DeviceReadiness {
        guard reported.problems.count <= DeviceReadiness.maxProblems else {
            throw APIProblem.invalidField(
                "readiness.problems holds \(reported.problems.count) names; at most \(DeviceReadiness.maxProblems)")
        }
        if let bad = reported.problems.first(where: { !ReadinessProblem.isWellFormed($0.rawValue) }) {
            let shown =
                bad.rawValue.utf8.count > ReadinessProblem.maxLength
                ? "a name longer than \(ReadinessProblem.maxLength) bytes"
                : "\"\(bad.rawValue)\""
            throw APIProblem.invalidField(
                "readiness.problems holds \(shown): each must be a lowercase snake_case name of 1 to \(ReadinessProblem.maxLength) characters"
            )
        }
        return DeviceReadiness(problems: reported.normalizedProblems, reportedAt: now)
    }

    /// Reverse-DNS: letters, digits, `.` and `-`, with at least one dot.
    static func isBundleID(_ id: String) -> Bool {
        (3...155).contains(id.utf8.count) && id.contains(".") && !id.hasPrefix(".") && !id.hasSuffix(".")
            && id.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 46
                    || byte == 45
            }
    }
}
