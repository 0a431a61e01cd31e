import Foundation
@preconcurrency import PushKit
import RingerKit
import RingerKitAppleMirrored
import RingerTestSupport
import RingerWire
import Testing
@preconcurrency import UserNotifications

/// RingerKitApple's half of the readiness pre-flight, on the UserNotifications mirror: which authorization
/// status is a problem, and the way a status takes to the server's device record. Serialized: the mirror's
/// status is process-wide, like the notification center; no other suite sets it.
@Suite(.serialized) struct RingerPhoneReadinessTests {
    @Test(arguments: [
        (UNAuthorizationStatus.notDetermined, [ReadinessProblem]()),
        (.denied, [.notificationsDisabled]),
        (.authorized, []),
        (.provisional, []),
        (.ephemeral, []),
    ])
    func onlyADeniedStatusIsANotificationsProblem(status: UNAuthorizationStatus, problems: [ReadinessProblem]) {
        #expect(RingerPhone.readinessProblems(for: status) == problems)
    }

    @Test func refreshReadinessSendsTheCurrentStatusToTheServer() async throws {
        let center = UNUserNotificationCenter.current()
        defer { center.mirrorAuthorizationStatus = .notDetermined }
        let harness = PhoneHarness()
        let server = harness.server
        harness.registry.mirrorUpdateCredentials(token: Data([0x0a]))
        #expect(await eventually(within: 5) { server.registration(device: "bob-iphone")?.voipToken == "0a" })

        center.mirrorAuthorizationStatus = .denied
        harness.phone.refreshReadiness()
        #expect(
            await eventually(within: 5) {
                server.registration(device: "bob-iphone")?.readiness?.problems == [.notificationsDisabled]
            })

        center.mirrorAuthorizationStatus = .authorized
        harness.phone.refreshReadiness()
        #expect(await eventually(within: 5) { server.registration(device: "bob-iphone")?.readiness?.problems == [] })
    }

    @Test func phoneReportsADenialFromLaunchWithTheFirstRegistration() async throws {
        let center = UNUserNotificationCenter.current()
        center.mirrorAuthorizationStatus = .denied
        defer { center.mirrorAuthorizationStatus = .notDetermined }
        let harness = PhoneHarness(loggedIn: false)
        let server = harness.server
        harness.registry.mirrorUpdateCredentials(token: Data([0x0b]))
        harness.phone.logIn(userToken: "bob")
        #expect(
            await eventually(within: 5) {
                server.registration(device: "bob-iphone")?.readiness?.problems == [.notificationsDisabled]
            })
    }

    @Test func registrarStillAddsTheMissingVoIPToken() async throws {
        let center = UNUserNotificationCenter.current()
        center.mirrorAuthorizationStatus = .denied
        defer { center.mirrorAuthorizationStatus = .notDetermined }
        let harness = PhoneHarness()
        let server = harness.server
        harness.phone.setAPNsToken(Data([0x01, 0x02]))
        #expect(
            await eventually(within: 5) {
                server.registration(device: "bob-iphone")?.readiness?.problems == [
                    .noPushToken, .notificationsDisabled,
                ]
            })
    }
}
