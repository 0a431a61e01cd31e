@testable import APNs
import HTTP2Client
import Foundation
import Testing

@Suite struct APNsNotificationIDTests {
    @Test func defaultNotificationsGetFreshIDs() {
        let first = APNsNotification(pushType: .voip, topic: "a.voip", payload: [])
        let second = APNsNotification(pushType: .voip, topic: "a.voip", payload: [])
        #expect(first.apnsID != second.apnsID)
    }

    @Test func requestHeadersCarryEveryFieldWithAuthorizationLast() {
        let id = UUID(uuidString: "4DC1A4B5-0F5A-4E5A-9C3C-1B2B3C4D5E6F")!
        let notification = APNsNotification(
            pushType: .voip, topic: "com.example.app.voip", priority: 10,
            expiration: Date(timeIntervalSince1970: 1_800_000_000.75), apnsID: id, collapseID: "call-1",
            payload: [])
        let fields = notification.requestHeaders(authorization: "bearer t").map { "\($0.name): \($0.value)" }
        #expect(
            fields == [
                "apns-push-type: voip", "apns-topic: com.example.app.voip", "apns-priority: 10",
                "apns-expiration: 1800000000", "apns-id: 4dc1a4b5-0f5a-4e5a-9c3c-1b2b3c4d5e6f",
                "content-type: application/json", "apns-collapse-id: call-1", "authorization: bearer t",
            ])
        #expect(notification.headers.map { "\($0.name): \($0.value)" } == Array(fields.dropLast()))
    }
}
