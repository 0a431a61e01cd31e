import Foundation
import RingerKit
import RingerScenarios
import RingerSupport
import RingerWire
import Testing

/// RingerKit learns the server's clock from the `Date` header of every API answer (RFC 9110 §6.6.1), the
/// first of its sources after `stream.ready`: real server, real URLSession transport, loopback.
@Suite(.serialized) struct ServerDateTests {
    @Test func everyAPIAnswerTellsRingerKitTheServersClock() async throws {
        let stack = try await LocalStack.start()
        let seen = LockedValue<[Date]>([])
        let api = RingerAPIClient(
            baseURL: stack.serverURL, userToken: try await stack.userToken(for: "alice", name: "Alice")
        )
        .observingServerTime { date in seen.withLock { $0.append(date) } }
        _ = try await api.registerDevice(id: "alice-pixel", .init(platform: .android, fcmToken: "fcm-token-alice"))
        await #expect(throws: RingerAPIError.self) { _ = try await api.call(id: UUID().uuidString.lowercased()) }
        await stack.shutdown()
        let dates = seen.snapshot
        #expect(dates.count == 2)
        // A loopback server shares this clock; whole seconds, read as the middle of their second.
        #expect(dates.allSatisfy { abs($0.timeIntervalSinceNow) < 3 })
    }
}
