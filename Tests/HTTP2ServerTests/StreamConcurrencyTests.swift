import Foundation
import HTTP2Server
import RingerHTTP
import Testing

/// Many streams on one connection, driven by the independent `h2` peer.
@Suite(.serialized)
struct StreamConcurrencyTests {
    @Test("200 concurrent POST streams on one connection, bodies without content-length, all answered")
    func twoHundredStreams() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let report = try await Peer.run(["concurrent", "--streams", "200"], against: server)
        let responses = try #require(report.responses)
        #expect(report.initial == 1000)
        #expect(responses.count == 200)
        for (index, response) in responses.enumerated() {
            #expect(response.streamID == 1 + 2 * index)
            #expect(response.status == 200)
            #expect(response.reset == nil)
            #expect(response.headers["x-echo"] == String(index))
            #expect(response.body == "echo:\(index):body-\(index)")
        }
        let requests = server.log.all
        #expect(requests.count == 200)
        #expect(
            requests.allSatisfy { $0.headers["content-length"] == nil && $0.method == "POST" && $0.httpVersion == 2 })
    }

    @Test("A handler that takes a second does not delay another stream on the same connection")
    func slowStreamDoesNotBlockFastOne() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let report = try await Peer.run(["slow-fast"], against: server)
        let responses = try #require(report.responses)
        try #require(responses.count == 2)
        let slow = responses[0]
        let fast = responses[1]
        #expect(slow.body == "slow" && fast.body == "fast")
        #expect((slow.elapsed ?? 0) >= 1.0)
        // Answered while the slow handler still runs: handlers one after the other would answer it after the
        // slow one. (Not a time limit: on a loaded machine the fast answer alone has taken over a second.)
        #expect(
            (fast.elapsed ?? 99) < (slow.elapsed ?? 0), "fast \(fast.elapsed ?? -1) s, slow \(slow.elapsed ?? -1) s")
    }

    @Test("A streamed body over the limit is answered 413 at once and not handed to the handler")
    func streamedBodyOverLimit() async throws {
        let server = try await TestServer.start { $0.maxRequestBodyBytes = 64 * 1024 }
        defer { server.stop() }
        let report = try await Peer.run(["upload", "--bytes", String(1024 * 1024)], against: server)
        let response = try #require(report.responses?.first)
        #expect(response.status == 413)
        #expect(response.body.contains("65536"))
        #expect((report.sentBytes ?? 0) > 64 * 1024)
        #expect(server.log.all.isEmpty)
    }

    @Test("A body exactly at the limit is accepted")
    func bodyAtLimit() async throws {
        let server = try await TestServer.start { $0.maxRequestBodyBytes = 100_000 }
        defer { server.stop() }
        let report = try await Peer.run(["upload", "--bytes", "100000"], against: server)
        let response = try #require(report.responses?.first)
        #expect(response.status == 200)
        #expect(server.log.all.first?.body.count == 100_000)
    }

    @Test("A stream the client resets: its late response is dropped, the connection keeps working")
    func clientResetsStream() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let report = try await Peer.run(["reset"], against: server)
        let responses = try #require(report.responses)
        try #require(responses.count == 2)
        #expect(responses[0].status == nil)
        #expect(responses[1].status == 200)
        #expect(responses[1].body == "fast")
        #expect(report.goaway == nil)
        #expect(server.log.all.map(\.path) == ["/slow", "/fast"])
    }

    @Test("A client that disconnects with a handler in flight: the handler task is cancelled")
    func clientDisconnects() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        // The peer gives up after half a second and closes its socket.
        let report = try await Peer.run(["hold"], against: server, timeout: 0.5)
        #expect(report.responses?.first?.status == nil)
        for _ in 0..<100 where server.log.cancellations == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.log.cancellations == 1)
    }

    @Test("A header list over the limit is answered 431 without calling the handler")
    func headerListOverLimit() async throws {
        let server = try await TestServer.start { $0.maxRequestHeaderBytes = 1024 }
        defer { server.stop() }
        let big = String(repeating: "v", count: 2000)
        let exchange = try await Curl.send("/empty", to: server, options: ["--http2", "-H", "x-big: \(big)"])
        #expect(exchange.status == 431, "curl exit \(exchange.exitCode): \(exchange.errorOutput)")
        #expect(server.log.all.isEmpty)
        #expect(try await Curl.send("/empty", to: server, options: ["--http2", "-H", "x-small: v"]).status == 200)
    }
}
