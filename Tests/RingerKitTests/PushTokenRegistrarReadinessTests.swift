import Foundation
import RingerKit
import RingerWire
import Testing

/// ``PushTokenRegistrar/setReadiness(_:)``: the app's report rides on every registration, and only a report
/// that differs re-registers.
@Suite struct PushTokenRegistrarReadinessTests {
    let server = FakeDeviceServer()
    let base = URL(string: "http://127.0.0.1:1")!

    func registrar() -> PushTokenRegistrar {
        PushTokenRegistrar(
            deviceID: "bob-iphone", platform: .ios, bundleID: "com.example.app", apnsEnvironment: .sandbox,
            random: { 0 }, sleep: { _ in })
    }

    func api(_ user: String) -> RingerAPIClient { RingerAPIClient(baseURL: base, userToken: user, transport: server) }

    /// The readiness of each request sent, nil for a request without one, "DELETE" for an unregistration.
    func sentReadiness() -> [[String]?] {
        server.requests.map { request in
            request.method == "DELETE"
                ? ["DELETE"] : request.registration?.readiness.map { $0.problems.map(\.rawValue) }
        }
    }

    @Test func aChangedReportReRegistersAndTheSameProblemsInAnyOrderDoNot() async {
        let registrar = registrar()
        registrar.setToken("aa", for: .voip)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [nil], "no report until the app makes one")

        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled, .callsNotPermitted]))
        await registrar.waitUntilIdle()
        registrar.setReadiness(
            DeviceReadiness(problems: [.callsNotPermitted, .notificationsDisabled, .callsNotPermitted]))
        await registrar.waitUntilIdle()
        // The app's own time is not sent: the server stamps the report.
        registrar.setReadiness(
            DeviceReadiness(problems: [.notificationsDisabled, .callsNotPermitted], reportedAt: Date()))
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [nil, ["calls_not_permitted", "notifications_disabled"]])
        #expect(server.requests.last?.registration?.readiness?.reportedAt == nil)

        registrar.setReadiness(DeviceReadiness(problems: []))
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [nil, ["calls_not_permitted", "notifications_disabled"], []])
        #expect(registrar.status.registeredDevice?.readiness?.problems == [])
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "aa")
    }

    @Test func aReportBeforeLoginWaitsAndRidesOnTheFirstRegistrationAndEveryLaterOne() async {
        let registrar = registrar()
        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled]))
        registrar.setToken("aa", for: .voip)
        await registrar.waitUntilIdle()
        #expect(server.requests.isEmpty)

        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        // A token rotation is a full replace on the server: the report is sent again with it.
        registrar.setToken("bb", for: .voip)
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [["notifications_disabled"], ["notifications_disabled"]])
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "bb")
        #expect(registrar.status.registeredDevice?.readiness?.problems == [.notificationsDisabled])
    }

    @Test func anIPhoneWithoutAVoIPTokenReportsNoPushTokenUntilPushKitGivesOne() async {
        let registrar = registrar()
        registrar.setToken("cc", for: .apns)
        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled]))
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        registrar.setToken("aa", for: .voip)
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [["no_push_token", "notifications_disabled"], ["notifications_disabled"]])
    }

    @Test func aFaultyReportNeverCostsTheRegistrationMalformedNamesDroppedAndTheCapKept() async {
        let registrar = registrar()
        registrar.setToken("cc", for: .apns)
        // Sixteen well-formed names of the app's own, two the server would refuse, and no VoIP token: the
        // registrar's no_push_token would make seventeen.
        let own = (1...16).map { ReadinessProblem(rawValue: "app_problem_\($0)") }
        registrar.setReadiness(
            DeviceReadiness(
                problems: own + [
                    ReadinessProblem(rawValue: "Bad Name"),
                    ReadinessProblem(rawValue: ""),
                ]))
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        let sent = server.requests.last?.registration?.readiness?.problems ?? []
        #expect(sent.count == DeviceReadiness.maxProblems)
        #expect(sent.contains(.noPushToken), "the registrar's own, known name is kept over the app's")
        #expect(sent.allSatisfy { ReadinessProblem.isWellFormed($0.rawValue) })
        #expect(sent == sent.sorted { $0.rawValue < $1.rawValue })
    }

    @Test func aRefusedReportIsNotRetriedUntilTheReportChanges() async {
        let registrar = registrar()
        registrar.setToken("aa", for: .voip)
        server.fail(.status(422))
        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled]))
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        #expect(server.requests.count == 1)
        #expect(registrar.status.registeredDevice == nil)

        registrar.setReadiness(DeviceReadiness(problems: [.batteryOptimized]))
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [["notifications_disabled"], ["battery_optimized"]])
        #expect(registrar.status.registeredDevice?.readiness?.problems == [.batteryOptimized])
    }

    @Test func logoutUnregistersWhateverTheReport() async {
        let registrar = registrar()
        registrar.setToken("aa", for: .voip)
        registrar.setReadiness(DeviceReadiness(problems: [.notificationsDisabled]))
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        registrar.logOut()
        registrar.setReadiness(DeviceReadiness(problems: []))
        await registrar.waitUntilIdle()
        #expect(sentReadiness() == [["notifications_disabled"], ["DELETE"]], "no registration after logout")
    }
}
