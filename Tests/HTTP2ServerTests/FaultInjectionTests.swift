import Foundation
import HTTP2Server
import RingerHTTP
import Testing

/// The hooks the APNs sandbox uses to misbehave on purpose, observed by the independent `h2` peer.
@Suite(.serialized)
struct FaultInjectionTests {
    @Test("setMaxConcurrentStreams(1) reaches an open connection as SETTINGS, and new connections start with it")
    func maxConcurrentStreams() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        // The /limit handler calls setMaxConcurrentStreams(1) while the peer's connection is open.
        let report = try await Peer.run(["settings"], against: server)
        #expect(report.initial == 1000)
        #expect(report.updated == 1)
        #expect(report.newConnection == 1)
        #expect(report.responses?.first?.status == 200)
    }

    @Test("sendGoAway(afterStreams: 3) with 5 requests in one burst: GOAWAY names stream 5, 3 answered, 2 refused")
    func goAwayAfterThreeBurst() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        server.server.sendGoAway(afterStreams: 3)
        let report = try await Peer.run(["goaway", "--requests", "5"], against: server)
        let goAway = try #require(report.goaway)
        #expect(goAway.lastStreamID == 5)
        #expect(goAway.errorCode == 0)
        let responses = try #require(report.responses)
        try #require(responses.count == 5)
        for (index, response) in responses.prefix(3).enumerated() {
            #expect(response.status == 200)
            #expect(response.body == "echo:\(index):")
        }
        for response in responses.suffix(2) {
            #expect(response.status == nil)
            // Refused with REFUSED_STREAM (7) when they arrived before the GOAWAY went out, else ignored.
            #expect(response.reset == nil || response.reset == 7)
        }
        #expect(server.server.statistics.streamsRefused == responses.filter { $0.reset == 7 }.count)
        #expect(report.closed == true)
        #expect(server.log.all.count == 3)
    }

    @Test("sendGoAway(afterStreams: 3) with requests one after another: the 3rd brings GOAWAY, then the close")
    func goAwayAfterThreeSequential() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        server.server.sendGoAway(afterStreams: 3)
        let report = try await Peer.run(["goaway", "--requests", "5", "--sequential"], against: server)
        #expect(report.goaway?.lastStreamID == 5)
        #expect(report.goaway?.errorCode == 0)
        #expect(report.requestsSent == 3)
        #expect(report.responses?.map(\.status) == [200, 200, 200])
        #expect(report.closed == true)
        server.server.sendGoAway(afterStreams: nil)
        let again = try await Peer.run(["goaway", "--requests", "5", "--sequential"], against: server, timeout: 1)
        #expect(again.goaway == nil)
        #expect(again.responses?.count == 5)
    }

    @Test("closeAllConnections() drops an open connection without GOAWAY; the listener keeps accepting")
    func closeAllConnections() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        async let held = Peer.run(["hold"], against: server)
        #expect(await server.log.waitFor(path: "/never"))
        server.server.closeAllConnections()
        let report = try await held
        #expect(report.closed == true)
        #expect(report.goaway == nil)
        #expect(report.responses?.first?.status == nil)
        let next = try await Curl.send("/empty", to: server)
        #expect(next.status == 200)
    }

    @Test("closeConnections(afterStreams: 0, connections: 1) cuts one connection at its first request, then wears off")
    func closeConnectionsIsCountLimited() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        server.server.closeConnections(afterStreams: 0, connections: 1)
        let cut = try await Curl.send("/empty", to: server)
        #expect(cut.exitCode != 0)
        #expect(cut.status == 0)
        let next = try await Curl.send("/empty", to: server)
        #expect(next.status == 200)
        #expect(server.log.all.count == 1)  // the cut request never reached the handler
        #expect(server.server.statistics.connectionsAccepted == 2)
    }

    @Test("sendGoAway(afterStreams: 0, connections: 1) refuses the first connection's request, then wears off")
    func goAwayIsCountLimited() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        server.server.sendGoAway(afterStreams: 0, connections: 1)
        let first = try await Curl.send("/empty", to: server)
        // libcurl 7.88 does not resend a stream refused by a GOAWAY that also ends the connection: error 16.
        #expect(first.exitCode == 16)
        let second = try await Curl.send("/empty", to: server)
        #expect(second.status == 200)
        #expect(server.log.all.count == 1)
        #expect(server.server.statistics.connectionsAccepted == 2)
    }
}
