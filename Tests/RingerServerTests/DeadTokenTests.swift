import Foundation
import RingerSandbox
import RingerScenarios
import RingerWire
import Testing

/// A token APNs reports gone is removed, unless the app registered it again since (compare-and-delete).
@Suite(.serialized) struct DeadTokenTests {
    static func devices(_ stack: LocalStack, user: String) async throws -> [Device] {
        let http = TestHTTP(base: stack.serverURL)
        let token = try await stack.userToken(for: user, name: nil)
        let data = try JSONSerialization.data(
            withJSONObject: (try await http.send("GET", "/v1/devices", token: token)).object["devices"] ?? [])
        return try RingerJSON.decode([Device].self, from: data)
    }

    @Test func unregisteredVoIPTokenIsRemovedAndTheNextCallFailsInsteadOfRingingNobody() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        stack.sandbox.unregister(token: bob.identity.voipToken, at: Date())
        _ = try await alice.call("bob")
        var devices: [Device] = []
        for _ in 0..<200 {
            devices = try await Self.devices(stack, user: "bob")
            if devices.first?.voipToken == nil { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(devices.count == 1)
        #expect(devices.first?.voipToken == nil)
        #expect(devices.first?.apnsToken == bob.identity.apnsToken)
        let next = try await alice.call("bob")
        #expect(next.state == .failed)
        await stack.shutdown()
    }

    @Test func staleUnregisteredAnswerDoesNotWipeAFresherRegistration() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        // APNs last saw the token valid a minute before the app registered it (again).
        stack.sandbox.unregister(token: bob.identity.voipToken, at: Date().addingTimeInterval(-60))
        let call = try await alice.call("bob")
        let http = TestHTTP(base: stack.serverURL)
        let bobToken = try await stack.userToken(for: "bob", name: nil)
        var statuses: [Int] = []
        for _ in 0..<200 where statuses.isEmpty {
            let pushes =
                (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bobToken).object["pushes"]
                    as? [[String: Any]]) ?? []
            statuses = pushes.compactMap { $0["status"] as? Int }
            if statuses.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(statuses == [410])
        #expect(try await Self.devices(stack, user: "bob").first?.voipToken == bob.identity.voipToken)
        await stack.shutdown()
    }
}
