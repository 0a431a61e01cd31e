import Foundation
import RingerSupport
import Testing

@testable import RingerKit

/// The event stream decides by how a connection ended: replaced (4001) and unauthorized (401) stop it,
/// too many sockets (429) waits long, 1009 is reported, every other ending reconnects as a drop.
@Suite struct EventStreamReconnectTests {
    /// Jitter pinned to its top, so each delay is the full exponential value.
    static let decision = EventStreamReconnect(
        reconnectBackoff: Backoff(initialDelay: 0.25, maximumDelay: 30),
        tooManySocketsBackoff: Backoff(initialDelay: 5, maximumDelay: 120), random: { 1 })

    @Test func aSocketReplacedByANewerOneOfTheDeviceStopsTheStream() {
        let replaced = WebSocketClose(code: 4001, reason: "replaced by a newer connection of this device")
        #expect(Self.decision.decide(.closed(replaced), failures: 0) == .stop(status: .replaced))
    }

    @Test func aRefusedTokenStopsTheStream() {
        #expect(Self.decision.decide(.refused(httpStatus: 401), failures: 1) == .stop(status: .unauthorized))
    }

    @Test func aRequestTheServerCallsWrongStopsTheStreamInsteadOfRetryingIt() {
        for status in [400, 403, 404, 422] {
            #expect(
                Self.decision.decide(.refused(httpStatus: status), failures: 1)
                    == .stop(status: .refused(httpStatus: status)))
        }
        // A request timeout is the network's, not the request's.
        #expect(
            Self.decision.decide(.refused(httpStatus: 408), failures: 1)
                == .reconnect(after: 0.5, status: .lost(retryIn: 0.5)))
    }

    @Test func tooManySocketsWaitsSecondsNotAQuarterOfOne() {
        #expect(
            Self.decision.decide(.refused(httpStatus: 429), failures: 1)
                == .reconnect(after: 5, status: .lost(retryIn: 5)))
        #expect(
            Self.decision.decide(.refused(httpStatus: 429), failures: 3)
                == .reconnect(after: 20, status: .lost(retryIn: 20)))
        #expect(
            Self.decision.decide(.refused(httpStatus: 429), failures: 40)
                == .reconnect(after: 120, status: .lost(retryIn: 120)))
    }

    @Test func aMessageTooBigIsReportedAndRetriedLikeADrop() {
        #expect(
            Self.decision.decide(.closed(WebSocketClose(code: 1009)), failures: 0)
                == .reconnect(after: 0.25, status: .messageTooBig(retryIn: 0.25)))
    }

    @Test func goingAwayDroppedAndOtherEndingsReconnectWithTheUsualBackoff() {
        for code: UInt16 in [1000, 1001, 1005, 1006, 1011, 4000, 4002] {
            #expect(
                Self.decision.decide(.closed(WebSocketClose(code: code)), failures: 0)
                    == .reconnect(after: 0.25, status: .lost(retryIn: 0.25)), "code \(code)")
        }
        #expect(Self.decision.decide(.failed, failures: 2) == .reconnect(after: 1, status: .lost(retryIn: 1)))
        #expect(
            Self.decision.decide(.refused(httpStatus: 503), failures: 2)
                == .reconnect(after: 1, status: .lost(retryIn: 1)))
        #expect(Self.decision.decide(.failed, failures: 50) == .reconnect(after: 30, status: .lost(retryIn: 30)))
    }

    @Test func theDefaultDelaysAreJitteredBetweenHalfAndAll() {
        let decision = EventStreamReconnect()
        for _ in 0..<50 {
            guard case .reconnect(let drop, _) = decision.decide(.closed(.abnormal), failures: 0),
                case .reconnect(let crowded, _) = decision.decide(.refused(httpStatus: 429), failures: 1)
            else {
                Issue.record("expected reconnects")
                return
            }
            #expect(drop >= 0.125 && drop <= 0.25)
            #expect(crowded >= 2.5 && crowded <= 5)
        }
    }
}

/// The stream carries the decision out: it stops, reports once, and can be started again.
@Suite struct EventStreamStopsByCloseCodeTests {
    typealias Sockets = EventStreamStatusTests.DroppableSockets
    typealias Statuses = EventStreamStatusTests.Statuses

    static func makeStream(_ sockets: Sockets, _ statuses: Statuses) -> EventStream {
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        return EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets, onEvent: { _ in },
            onStatus: { statuses.append($0) })
    }

    @Test func aReplacedStreamReportsReplacedOnceStaysDownAndCanStartAgain() async throws {
        let sockets = Sockets()
        let statuses = Statuses()
        let stream = Self.makeStream(sockets, statuses)
        defer { stream.stop() }
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected"] })
        sockets.close(with: WebSocketClose(code: 4001, reason: "replaced by a newer connection of this device"))
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected", "replaced"] })
        try await Task.sleep(for: .milliseconds(600))
        #expect(sockets.connects == 1, "no reconnect after being replaced")
        #expect(statuses.kinds == ["connected", "replaced"])

        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected", "replaced", "connected"] })
        #expect(sockets.connects == 2)
        stream.stop()
        #expect(statuses.kinds.last == "closed")
    }

    @Test func aRefusedTokenReportsUnauthorizedWithoutRetrying() async throws {
        let sockets = Sockets()
        let statuses = Statuses()
        sockets.refuseNext(5, status: 401)
        let stream = Self.makeStream(sockets, statuses)
        defer { stream.stop() }
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["unauthorized"] })
        try await Task.sleep(for: .milliseconds(600))
        #expect(sockets.connects == 1)
    }

    @Test func tooManySocketsRetriesAfterSecondsAndAMessageTooBigIsReported() async throws {
        let sockets = Sockets()
        let statuses = Statuses()
        let stream = Self.makeStream(sockets, statuses)
        defer { stream.stop() }
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected"] })
        sockets.close(with: WebSocketClose(code: 1009))
        #expect(
            await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected", "messageTooBig", "restored"] })

        sockets.refuseNext(1, status: 429)
        sockets.drop()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds.count == 5 })
        guard case .lost(let afterDrop) = statuses.all[3], case .lost(let afterRefusal) = statuses.all[4] else {
            Issue.record("expected two losses: \(statuses.all)")
            return
        }
        #expect(afterDrop <= 0.25)
        #expect(afterRefusal >= 2.5, "a full server is retried after seconds, got \(afterRefusal)")
    }
}
