import Foundation
import RingerKit
import RingerSandbox
import RingerWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reading the outcome: the calls through the API, the devices' push tokens, and what the sandboxes
/// accepted, compared by ``ScenarioVerdict``.
extension ScenarioSession {
    /// The call as the server has it now, read by its callee when the callee has a phone (only the callee is
    /// shown the push outcomes, docs/security.md), else by its caller.
    func read(_ label: String) async -> Call? {
        guard let placed = calls[label], let token = tokens[placed.callee] ?? tokens[placed.caller] else { return nil }
        return try? await RingerAPIClient(baseURL: stack.serverURL, userToken: token).call(id: placed.id)
    }

    /// Every difference between now and the file's `expect`.
    func compare() async -> [String] {
        var current: [String: Call] = [:]
        var unreadable: [String] = []
        for label in scenario.callLabels where calls[label] != nil {
            if let call = await read(label) {
                current[label] = call
            } else {
                unreadable.append("call \(label): cannot be read")
            }
        }
        var tokensHeld: [String: Bool] = [:]
        for (id, expected) in scenario.expect.devices where expected.tokenRemoved != nil {
            guard let device = scenario.devices.first(where: { $0.id == id }) else { continue }
            guard let held = await pushTokenHeld(device) else {
                unreadable.append("\(id): the server's devices cannot be read")
                continue
            }
            tokensHeld[id] = held
        }
        let messages = stack.fcmSandbox.acceptedMessages
        var fates: [String: FCMSandboxDeliveryState] = [:]
        for message in messages { fates[message.name] = stack.fcmSandbox.deliveryState(ofMessage: message.name) }
        let verdict = ScenarioVerdict(
            scenario: scenario, devices: recorder.devices, calls: current,
            pushes: stack.sandbox.acceptedPushes,
            fcm: .init(messages: messages, fates: fates, tokens: fcmTokens),
            tokensHeld: tokensHeld)
        return unreadable + verdict.mismatches()
    }

    /// Whether the server still holds the device's push token (`GET /v1/devices` as its user): its VoIP
    /// token for an iPhone, its FCM token for an Android phone. Nil when the list cannot be read.
    private func pushTokenHeld(_ device: ScenarioDevice) async -> Bool? {
        guard let token = tokens[device.user] else { return nil }
        var request = URLRequest(url: stack.serverURL.appendingPathComponent("v1/devices"))
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            (response as? HTTPURLResponse)?.statusCode == 200,
            let list = try? RingerJSON.decode(DeviceList.self, from: data)
        else { return nil }
        guard let registered = list.devices.first(where: { $0.deviceID == device.id }) else { return false }
        return (device.platform == .android ? registered.fcmToken : registered.voipToken) != nil
    }

    /// `GET /v1/devices`'s body.
    private struct DeviceList: Decodable {
        var devices: [Device]
    }
}
