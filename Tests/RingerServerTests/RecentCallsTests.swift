import Foundation
import RingerKit
import RingerWire
import Testing

/// The SDK's call history (decision 0008 §4): `RingerAPIClient.recentCalls(limit:before:)` reads `GET /v1/calls` a
/// page at a time against the real server, each call as its reader sees it, and passes the server's refusals on.
@Suite struct RecentCallsTests {
    typealias API = APITests

    @Test func pagesOfRecentCallsFollowNextBeforeToTheOldest() async throws {
        try await API.withServer { http in
            let alice = try await API.token(http, "alice", name: "Alice")
            let bob = try await API.token(http, "bob", name: "Bob")
            var placed: [String] = []
            for _ in 0..<5 {
                let created = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
                placed.append(try created.decode(Call.self).callID)
            }
            let api = RingerAPIClient(baseURL: http.base, userToken: alice)
            var seen: [String] = []
            var before: String?
            var pages = 0
            repeat {
                let page = try await api.recentCalls(limit: 2, before: before)
                #expect(page.calls.count <= 2)
                seen += page.calls.map(\.callID)
                before = page.nextBefore
                pages += 1
            } while before != nil && pages < 10
            #expect(seen == placed.reversed(), "newest first, each once")
            #expect(pages == 3)
            // The callee reads the same calls, as theirs.
            let bobs = try await RingerAPIClient(baseURL: http.base, userToken: bob).recentCalls()
            #expect(bobs.calls.map(\.callID) == placed.reversed() && bobs.nextBefore == nil)
            #expect(bobs.calls.allSatisfy { $0.callee.id == "bob" && $0.caller.id == "alice" })
        }
    }

    @Test func aBadLimitOrAForeignBeforeIsTheServersProblem() async throws {
        try await API.withServer { http in
            let alice = try await API.token(http, "alice", name: "Alice")
            let api = RingerAPIClient(baseURL: http.base, userToken: alice)
            for limit in [0, 101] {
                let error = await #expect(throws: RingerAPIError.self) { try await api.recentCalls(limit: limit) }
                #expect(error?.problem?.type == ProblemType.invalidField.rawValue, "limit \(limit)")
            }
            let stranger = UUID().uuidString.lowercased()
            let error = await #expect(throws: RingerAPIError.self) { try await api.recentCalls(before: stranger) }
            #expect(error?.problem?.type == ProblemType.callNotFound.rawValue)
        }
    }
}
