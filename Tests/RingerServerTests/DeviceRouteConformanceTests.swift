import Foundation
import RingerWire
import Testing

@testable import RingerServer

/// The device routes answer what docs/openapi.yaml says for input its schema refuses (found by schemathesis).
@Suite struct DeviceRouteConformanceTests {
    @Test func unregisteringAnInvalidDeviceIdIs422NotASilent204() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let response = try await http.send("DELETE", "/v1/devices/%C2%84", token: bob)
            #expect(response.status == 422)
            #expect(response.object["type"] as? String == ProblemType.invalidField.rawValue)
            #expect(try await http.send("DELETE", "/v1/devices/never-registered", token: bob).status == 204)
        }
    }
}
