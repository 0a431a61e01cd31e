import APNs
import Foundation
import Testing

@Suite struct APNsNotificationIDTests {
    @Test func randomIDsAreVersion4AndDistinct() {
        let ids = (0..<1000).map { _ in APNsNotification.randomID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.uuid.6 >> 4 == 4)  // version 4
            #expect(id.uuid.8 >> 6 == 2)  // RFC 9562 variant
        }
    }

    @Test func defaultNotificationsGetFreshIDs() {
        let first = APNsNotification(pushType: .voip, topic: "a.voip", payload: [])
        let second = APNsNotification(pushType: .voip, topic: "a.voip", payload: [])
        #expect(first.apnsID != second.apnsID)
    }
}
