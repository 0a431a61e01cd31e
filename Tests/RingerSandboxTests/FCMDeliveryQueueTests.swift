import Foundation
import Testing

@testable import RingerSandbox

/// FCM's delivery rules for online, dozing and offline phones, `ttl`, collapse keys and demotion.
@Suite struct FCMDeliveryQueueTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let app = FCMDeliveryQueue.App(projectID: "ringer-dev", packageName: "dev.ringer.demo")

    func message(
        _ name: String, priority: FCMSandboxMessage.Priority = .high, ttl: TimeInterval = 60,
        collapseKey: String? = nil, at offset: TimeInterval = 0, token: String = "t"
    ) -> FCMSandboxMessage {
        FCMSandboxMessage(
            name: name, projectID: "ringer-dev", token: token, data: [:], requestedPriority: priority,
            priority: priority, ttl: ttl, collapseKey: collapseKey, acceptedAt: start.addingTimeInterval(offset))
    }

    @Test func anOnlinePhoneGetsEveryMessageAtOnce() {
        var queue = FCMDeliveryQueue()
        #expect(queue.accept(message("a", priority: .normal), reachability: .online, now: start).map(\.name) == ["a"])
        #expect(queue.accept(message("b"), reachability: .online, now: start).map(\.name) == ["b"])
        #expect(queue.states["a"] == .delivering)
        queue.record(.userVisible, for: message("a"), app: app, now: start)
        #expect(queue.states["a"] == .delivered(.userVisible))
    }

    @Test func aDozingPhoneGetsHighAtOnceAndNormalInTheMaintenanceWindow() {
        var queue = FCMDeliveryQueue()
        #expect(queue.accept(message("high"), reachability: .dozing, now: start).map(\.name) == ["high"])
        #expect(queue.accept(message("normal", priority: .normal), reachability: .dozing, now: start).isEmpty)
        #expect(queue.states["normal"] == .stored)
        #expect(queue.release(token: "t", reachability: .dozing, now: start.addingTimeInterval(5)).isEmpty)
        #expect(queue.maintenanceWindow(token: "t", now: start.addingTimeInterval(10)).map(\.name) == ["normal"])
        #expect(queue.storedMessages(token: "t").isEmpty)
    }

    @Test func leavingDozeDeliversWhatWaited() {
        var queue = FCMDeliveryQueue()
        _ = queue.accept(message("n1", priority: .normal), reachability: .dozing, now: start)
        _ = queue.accept(
            message("n2", priority: .normal, at: 1), reachability: .dozing, now: start.addingTimeInterval(1))
        #expect(
            queue.release(token: "t", reachability: .online, now: start.addingTimeInterval(2)).map(\.name) == [
                "n1", "n2",
            ])
    }

    @Test func anOfflinePhoneGetsStoredMessagesWhenBackAndHighOnesEvenIfDozing() {
        var queue = FCMDeliveryQueue()
        #expect(queue.accept(message("h"), reachability: .offline, now: start).isEmpty)
        #expect(queue.accept(message("n", priority: .normal), reachability: .offline, now: start).isEmpty)
        #expect(queue.release(token: "t", reachability: .offline, now: start).isEmpty)
        #expect(queue.release(token: "t", reachability: .dozing, now: start.addingTimeInterval(1)).map(\.name) == ["h"])
        #expect(queue.release(token: "t", reachability: .online, now: start.addingTimeInterval(2)).map(\.name) == ["n"])
    }

    @Test func aStoredMessageWhoseTTLRanOutIsNeverDelivered() {
        var queue = FCMDeliveryQueue()
        _ = queue.accept(message("short", ttl: 30), reachability: .offline, now: start)
        _ = queue.accept(message("long", ttl: 300), reachability: .offline, now: start)
        #expect(
            queue.release(token: "t", reachability: .online, now: start.addingTimeInterval(31)).map(\.name) == ["long"])
        #expect(queue.states["short"] == .expired)
        // Exactly at its end it is still deliverable.
        _ = queue.accept(message("edge", ttl: 30, at: 100), reachability: .offline, now: start.addingTimeInterval(100))
        #expect(
            queue.release(token: "t", reachability: .online, now: start.addingTimeInterval(130)).map(\.name) == ["edge"]
        )
    }

    @Test func ttlZeroIsNowOrNever() {
        var queue = FCMDeliveryQueue()
        #expect(queue.accept(message("now", ttl: 0), reachability: .online, now: start).map(\.name) == ["now"])
        #expect(queue.accept(message("never", ttl: 0), reachability: .offline, now: start).isEmpty)
        #expect(queue.states["never"] == .expired)
        #expect(queue.accept(message("doze", priority: .normal, ttl: 0), reachability: .dozing, now: start).isEmpty)
        #expect(queue.states["doze"] == .expired)
        #expect(queue.release(token: "t", reachability: .online, now: start).isEmpty)
    }

    @Test func expireMarksStoredMessagesPastTheirTTL() {
        var queue = FCMDeliveryQueue()
        _ = queue.accept(message("m", ttl: 10), reachability: .offline, now: start)
        queue.expire(now: start.addingTimeInterval(5))
        #expect(queue.states["m"] == .stored)
        queue.expire(now: start.addingTimeInterval(11))
        #expect(queue.states["m"] == .expired)
        #expect(queue.storedMessages(token: "t").isEmpty)
    }

    @Test func aNewerMessageWithTheSameCollapseKeyReplacesTheStoredOne() {
        var queue = FCMDeliveryQueue()
        _ = queue.accept(message("first", collapseKey: "call-1"), reachability: .offline, now: start)
        _ = queue.accept(message("other", collapseKey: "call-2"), reachability: .offline, now: start)
        _ = queue.accept(message("plain"), reachability: .offline, now: start)
        _ = queue.accept(message("second", collapseKey: "call-1"), reachability: .offline, now: start)
        #expect(queue.states["first"] == .collapsed)
        #expect(
            queue.release(token: "t", reachability: .online, now: start).map(\.name) == ["other", "plain", "second"])
    }

    /// A message whose phone's connection ended before the acknowledgement waits for the phone again, in the order
    /// the messages were accepted, unless its `ttl` ran out, it was "now or never", or a newer one replaced it.
    @Test func aMessageStoredAgainAfterALostConnectionIsDeliveredInOrderOrNotAtAll() {
        var queue = FCMDeliveryQueue()
        let lost = message("lost", at: 1)
        _ = queue.accept(lost, reachability: .online, now: start.addingTimeInterval(1))
        _ = queue.accept(message("early"), reachability: .offline, now: start)
        _ = queue.accept(message("late", at: 2), reachability: .offline, now: start.addingTimeInterval(2))
        queue.storeAgain(lost, now: start.addingTimeInterval(3))
        #expect(queue.states["lost"] == .stored)
        #expect(queue.storedMessages(token: "t").map(\.name) == ["early", "lost", "late"])
        #expect(
            queue.release(token: "t", reachability: .online, now: start.addingTimeInterval(4)).map(\.name) == [
                "early", "lost", "late",
            ])

        queue.storeAgain(message("expired", ttl: 10), now: start.addingTimeInterval(11))
        queue.storeAgain(message("now-or-never", ttl: 0), now: start)
        #expect(queue.states["expired"] == .expired && queue.states["now-or-never"] == .expired)
        _ = queue.accept(message("newer", collapseKey: "call-1", at: 5), reachability: .offline, now: start)
        queue.storeAgain(message("older", collapseKey: "call-1"), now: start.addingTimeInterval(5))
        #expect(queue.states["older"] == .collapsed)
        #expect(queue.storedMessages(token: "t").map(\.name) == ["newer"])
    }

    @Test func pastTheStoredLimitEverythingStoredIsDiscarded() {
        var queue = FCMDeliveryQueue(rules: .init(storedMessageLimit: 3))
        for index in 0..<3 { _ = queue.accept(message("m\(index)"), reachability: .offline, now: start) }
        #expect(queue.storedMessages(token: "t").count == 3)
        _ = queue.accept(message("m3"), reachability: .offline, now: start)
        #expect(queue.storedMessages(token: "t").isEmpty)
        #expect((0..<4).allSatisfy { queue.states["m\($0)"] == .discarded })
        _ = queue.accept(message("m4"), reachability: .offline, now: start)
        #expect(queue.storedMessages(token: "t").map(\.name) == ["m4"])
    }

    @Test func aDeletedTokensStoredMessagesAreDiscarded() {
        var queue = FCMDeliveryQueue()
        _ = queue.accept(message("m"), reachability: .offline, now: start)
        queue.discard(token: "t")
        #expect(queue.states["m"] == .discarded)
        #expect(queue.release(token: "t", reachability: .online, now: start).isEmpty)
    }

    @Test func highMessagesThatShowNothingDemoteTheAppAfterTheThreshold() {
        var queue = FCMDeliveryQueue(rules: .init(demotionThreshold: 3, demotionWindow: 600))
        #expect(queue.deliveryPriority(.high, app: app, now: start) == .high)
        queue.record(.silent, for: message("1"), app: app, now: start)
        queue.record(.notDelivered("force-stopped"), for: message("2"), app: app, now: start.addingTimeInterval(10))
        // A visible one does not count, nor does a NORMAL one.
        queue.record(.userVisible, for: message("3"), app: app, now: start.addingTimeInterval(20))
        queue.record(.silent, for: message("4", priority: .normal), app: app, now: start.addingTimeInterval(30))
        #expect(!queue.isDemoted(app, now: start.addingTimeInterval(30)))
        queue.record(.silent, for: message("5"), app: app, now: start.addingTimeInterval(40))
        #expect(queue.isDemoted(app, now: start.addingTimeInterval(40)))
        #expect(queue.deliveryPriority(.high, app: app, now: start.addingTimeInterval(41)) == .normal)
        #expect(queue.deliveryPriority(.normal, app: app, now: start.addingTimeInterval(41)) == .normal)
        // Another app of the same project is not demoted.
        let other = FCMDeliveryQueue.App(projectID: "ringer-dev", packageName: "dev.ringer.other")
        #expect(queue.deliveryPriority(.high, app: other, now: start.addingTimeInterval(41)) == .high)
        // One window after the demotion, HIGH is HIGH again and the count starts afresh.
        #expect(queue.deliveryPriority(.high, app: app, now: start.addingTimeInterval(640)) == .high)
        queue.record(.silent, for: message("6"), app: app, now: start.addingTimeInterval(641))
        #expect(!queue.isDemoted(app, now: start.addingTimeInterval(641)))
    }

    @Test func misusesOutsideTheWindowDoNotAddUp() {
        var queue = FCMDeliveryQueue(rules: .init(demotionThreshold: 2, demotionWindow: 100))
        queue.record(.silent, for: message("1"), app: app, now: start)
        queue.record(.silent, for: message("2"), app: app, now: start.addingTimeInterval(150))
        #expect(!queue.isDemoted(app, now: start.addingTimeInterval(150)))
        queue.record(.silent, for: message("3"), app: app, now: start.addingTimeInterval(200))
        #expect(queue.isDemoted(app, now: start.addingTimeInterval(200)))
    }

    @Test func aDeviceWithoutAReceiverNeverCountsAsMisuse() {
        var queue = FCMDeliveryQueue(rules: .init(demotionThreshold: 1))
        queue.record(nil, for: message("1"), app: app, now: start)
        #expect(queue.states["1"] == .delivered(nil))
        #expect(!queue.isDemoted(app, now: start))
    }
}
