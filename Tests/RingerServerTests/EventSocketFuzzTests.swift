import Foundation
import LibWebSockets
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// Hostile frames on the event socket (Tests/Peers/ws_fuzz_peer.py, raw sockets): each ends its own
/// connection the way RFC 6455 asks, the server keeps serving, and a bystander of the same user still gets
/// every event of a call placed afterwards, in order (issue 12, "A WebSocket fuzz test").
@Suite(.serialized) struct EventSocketFuzzTests {
    /// How the peer says each attack ended.
    struct Outcome: Decodable {
        var upgraded: Bool
        var closeCode: Int?
        var dropped: Bool
        var seconds: Double
    }

    @Test func hostileFramesCloseOnlyTheirOwnSocketAndTheServerKeepsServing() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let alice = try await APITests.token(http, "alice")
            let inbox = EventStreamTests.Inbox()
            let bystander = try await EventStreamTests.connect(
                http, token: bob, query: "device_id=bob-tablet", inbox: inbox)
            defer { bystander.close() }

            let peer = Process()
            peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            peer.arguments = [
                "python3", PeerScripts.path("ws_fuzz_peer.py"), String(http.base.port ?? 0),
                "/v1/events?access_token=\(bob)", "10",
            ]
            let output = Pipe()
            peer.standardOutput = output
            try peer.run()
            let data = try output.fileHandleForReading.readToEnd() ?? Data()
            peer.waitUntilExit()
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let outcomes = try decoder.decode([String: Outcome].self, from: data)
            #expect(outcomes.count == 11 && outcomes.values.allSatisfy(\.upgraded), "\(outcomes)")
            // Protocol errors get 1002, text that is not UTF-8 1007, a message over 4 KiB 1009 (RFC 6455 §7.4.1);
            // a control frame over 125 bytes may just be dropped (§7.1.7, "Fail the WebSocket Connection").
            let expected: [String: Set<Int?>] = [
                "reserved_bits": [1002], "unknown_opcode": [1002], "fragmented_control": [1002],
                "orphan_continuation": [1002], "long_control": [1002, nil], "bad_utf8": [1007],
                "huge_length": [1009], "oversized_fragments": [1009],
                // The floods end with the client's own close 1000, which the server answers.
                "ping_flood": [1000], "binary_flood": [1000],
            ]
            for (attack, codes) in expected {
                let outcome = try #require(outcomes[attack], "\(attack)")
                #expect(codes.contains(outcome.closeCode), "\(attack): \(outcome)")
                // Every attack was answered at once, none by a timeout.
                #expect(outcome.seconds < 5, "\(attack): \(outcome)")
            }

            #expect(try await http.send("GET", "/healthz").status == 200)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice)
            #expect(await inbox.wait(for: .callCancelled) != nil)
            let events = inbox.events.withLock { $0 }.filter { $0.call.callID == call.callID }
            #expect(events.map(\.type) == [.callIncoming, .callCancelled], "\(events.map(\.type))")
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.seq < $1.seq })
        }
    }
}
