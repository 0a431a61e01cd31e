import Foundation
import Testing

@testable import RingerServer

/// Media tokens signed with LiveKit's published development key are not silent: `/healthz` names it until
/// the operator sets a key pair of their own (issue 12, item 8).
@Suite struct MediaKeyWarningTests {
    @Test func healthNamesTheMediaDevelopmentKeyUntilARealOneIsSet() async throws {
        try await APITests.withServer { http in
            let health = try await http.send("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.object["status"] as? String == "ok")
            #expect(health.object["warnings"] as? [String] == ["media-development-key"])
        }
        try await APITests.withServer(configure: { config in
            config.media.apiKey = "APIprod"
            config.media.apiSecret = String(repeating: "k", count: 40)
        }) { http in
            let health = try await http.send("GET", "/healthz")
            #expect(health.object["status"] as? String == "ok")
            #expect(health.object["warnings"] == nil)
        }
    }
}
