import Foundation
import RingerKit
import RingerSandbox
import RingerSupport
import RingerWire
import Testing

/// The simulated self-managed ConnectionService follows docs/android-integration.md and Telecom's rules, and
/// the foreground service Android 14's.
@Suite struct SimulatedAndroidConnectionServiceTests {
    typealias Environment = SimulatedConnectionService.Environment

    func report(_ service: SimulatedConnectionService, _ id: UUID = UUID()) -> (any Error)? {
        let error = LockedValue<(any Error)?>(nil)
        service.reportIncomingCall(
            IncomingCallReport(id: id, caller: Party(id: "alice", name: "Alice"), hasVideo: false)
        ) {
            result in error.withLock { $0 = result }
        }
        return error.snapshot
    }

    /// A coordinator whose server cannot be reached: local call handling only.
    func coordinator(_ service: SimulatedConnectionService) -> CallCoordinator {
        let coordinator = CallCoordinator(deviceID: "bob-android", ui: service)
        coordinator.connect(api: RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t"))
        return coordinator
    }

    func ringingMessage(_ id: UUID) -> [String: String] {
        let body = VoIPPush.Body(
            callId: id.uuidString.lowercased(), caller: Party(id: "alice"), hasVideo: false,
            sentAt: Date().unixMilliseconds, expiresAt: Date().addingTimeInterval(60).unixMilliseconds)
        return ["ringer": String(decoding: try! RingerJSON.encode(body), as: UTF8.self)]
    }

    @Test func incomingCallIsAddedThenCreatedAndSetRinging() {
        let service = SimulatedConnectionService()
        let id = UUID()
        #expect(report(service, id) == nil)
        #expect(service.changes == [.addNewIncomingCall(id), .ringing(id, .inApp), .ringerStarted])
        #expect(service.connection(id)?.state == .ringing)
        #expect(service.connection(id)?.party.name == "Alice")
        #expect(service.isRinging)
    }

    @Test func aSecondReportForAKnownCallIDIsRefused() {
        let service = SimulatedConnectionService()
        let id = UUID()
        #expect(report(service, id) == nil)
        #expect(report(service, id) as? ConnectionServiceError == .callAlreadyExists)
        #expect(service.connections.count == 1)
        #expect(service.changes.last == .refused(id, .callAlreadyExists))
    }

    @Test func withoutManageOwnCallsAddNewIncomingCallThrowsSecurityException() {
        let permissions = Set(AndroidPermission.allCases).subtracting([.manageOwnCalls])
        let service = SimulatedConnectionService(environment: { Environment(permissions: permissions) })
        #expect(report(service) as? ConnectionServiceError == .securityException)
        #expect(service.connections.isEmpty)
        #expect(!service.isRinging)
    }

    @Test func telecomThatCannotTakeTheCallFailsTheIncomingConnection() {
        let service = SimulatedConnectionService(environment: { Environment(anotherAppInCall: true) })
        #expect(report(service) as? ConnectionServiceError == .incomingConnectionFailed)
        #expect(service.connections.isEmpty)
    }

    @Test func remoteEndingsSetDisconnectedWithTheMappedCauseThenDestroy() {
        let cases: [(CallEndReason, DisconnectCause.Code)] = [
            (.remoteEnded, .remote), (.unanswered, .missed), (.answeredElsewhere, .answeredElsewhere),
            (.declinedElsewhere, .rejected), (.failed, .error), ("something_new", .unknown),
        ]
        for (reason, code) in cases {
            let service = SimulatedConnectionService()
            let id = UUID()
            _ = report(service, id)
            service.reportCallEnded(id: id, at: Date(), reason: reason)
            #expect(service.connection(id)?.state == .disconnected)
            #expect(service.connection(id)?.disconnectCause?.code == code, "\(reason)")
            #expect(
                Array(service.changes.suffix(3)) == [
                    .disconnected(id, DisconnectCause(endReason: reason)), .destroyed(id), .ringerStopped,
                ])
            // Once only: a second ending changes nothing.
            let count = service.changes.count
            service.reportCallEnded(id: id, at: Date(), reason: .failed)
            #expect(service.changes.count == count)
        }
        #expect(DisconnectCause(endReason: .declinedElsewhere).reason == "declined elsewhere")
    }

    @Test func disconnectCauseCodesCarryAndroidsNamesAndValues() {
        let expected: [(DisconnectCause.Code, String, Int)] = [
            (.unknown, "UNKNOWN", 0), (.error, "ERROR", 1), (.local, "LOCAL", 2), (.remote, "REMOTE", 3),
            (.canceled, "CANCELED", 4), (.missed, "MISSED", 5), (.rejected, "REJECTED", 6), (.busy, "BUSY", 7),
            (.restricted, "RESTRICTED", 8), (.other, "OTHER", 9),
            (.connectionManagerNotSupported, "CONNECTION_MANAGER_NOT_SUPPORTED", 10),
            (.answeredElsewhere, "ANSWERED_ELSEWHERE", 11), (.callPulled, "CALL_PULLED", 12),
        ]
        for (code, name, value) in expected {
            #expect(code.rawValue == name)
            #expect(code.value == value)
        }
        #expect(DisconnectCause.Code.allCases.count == expected.count)
    }

    @Test func incomingCallUIDependsOnTheLockScreenTheFullScreenPermissionAndThePriority() {
        let all = Set(AndroidPermission.allCases)
        let noFullScreen = all.subtracting([.useFullScreenIntent])
        let cases: [(Environment, SimulatedConnection.Presentation)] = [
            (Environment(locked: false, appInForeground: true), .inApp),
            (Environment(locked: true, appInForeground: true), .fullScreen),
            (Environment(locked: true, appInForeground: false, highPriorityMessage: true), .fullScreen),
            // A normal-priority (or demoted) message gives a background app no right to launch its call screen.
            (Environment(locked: true, appInForeground: false, highPriorityMessage: false), .headsUp),
            (
                Environment(permissions: noFullScreen, locked: true, appInForeground: false, highPriorityMessage: true),
                .headsUp
            ),
            (Environment(permissions: noFullScreen, locked: true, appInForeground: true), .headsUp),
            // The user is on another app: a full-screen intent shows as a heads-up notification.
            (Environment(locked: false, appInForeground: false, highPriorityMessage: true), .headsUp),
        ]
        for (environment, presentation) in cases {
            let service = SimulatedConnectionService(environment: { environment })
            let id = UUID()
            #expect(report(service, id) == nil)
            #expect(service.connection(id)?.presentation == presentation, "\(environment)")
        }
    }

    @Test func callRingsWithoutPostNotifications() {
        let permissions = Set(AndroidPermission.allCases).subtracting([.postNotifications])
        let service = SimulatedConnectionService(environment: {
            Environment(permissions: permissions, appInForeground: false)
        })
        let id = UUID()
        #expect(report(service, id) == nil)
        #expect(service.connection(id)?.state == .ringing)
        #expect(service.isRinging)
    }

    @Test func ringerStopsWhenEveryRingingCallIsDeclinedInEitherOrder() {
        for reversed in [false, true] {
            let service = SimulatedConnectionService()
            let coordinator = coordinator(service)
            let (first, second) = (UUID(), UUID())
            coordinator.handleDataMessage(ringingMessage(first))
            coordinator.handleDataMessage(ringingMessage(second))
            #expect(service.isRinging)
            let order = reversed ? [second, first] : [first, second]
            service.onReject(order[0], coordinator: coordinator)
            #expect(service.isRinging, "one call still rings")
            #expect(service.connection(order[0])?.disconnectCause == DisconnectCause(.rejected))
            service.onReject(order[1], coordinator: coordinator)
            #expect(!service.isRinging)
            #expect(
                service.changes.filter { $0 == .ringerStarted || $0 == .ringerStopped } == [
                    .ringerStarted, .ringerStopped,
                ])
            #expect(service.changes.last == .ringerStopped)
        }
    }

    @Test func ringerStopsWhenOneCallIsDeclinedAndTheOtherEndsRemotelyInEitherOrder() {
        for declineFirst in [false, true] {
            let service = SimulatedConnectionService()
            let coordinator = coordinator(service)
            let (declined, cancelled) = (UUID(), UUID())
            coordinator.handleDataMessage(ringingMessage(declined))
            coordinator.handleDataMessage(ringingMessage(cancelled))
            let decline = { service.onReject(declined, coordinator: coordinator) }
            let cancel = { service.reportCallEnded(id: cancelled, at: Date(), reason: .remoteEnded) }
            if declineFirst { decline() } else { cancel() }
            #expect(service.isRinging)
            if declineFirst { cancel() } else { decline() }
            #expect(!service.isRinging)
            #expect(service.connection(cancelled)?.disconnectCause == DisconnectCause(.remote))
        }
    }

    @Test func userHangUpIsLocalAndTheCoordinatorIsTold() {
        let service = SimulatedConnectionService()
        let coordinator = coordinator(service)
        let id = UUID()
        try? service.placeCall(id: id, callee: Party(id: "carol"), hasVideo: false)
        #expect(service.connection(id)?.state == .dialing)
        #expect(service.hasCallInProgress)
        service.onDisconnect(id, coordinator: coordinator)
        #expect(service.connection(id)?.disconnectCause == DisconnectCause(.local))
        #expect(!service.hasCallInProgress)
        #expect(throws: ConnectionServiceError.callAlreadyExists) {
            try service.placeCall(id: id, callee: Party(id: "carol"), hasVideo: false)
        }
    }

    @Test func deathOfTheAppsProcessDisconnectsEveryConnection() {
        let service = SimulatedConnectionService()
        let (first, second) = (UUID(), UUID())
        _ = report(service, first)
        _ = report(service, second)
        service.processDied()
        #expect(service.connections.allSatisfy { $0.state == .disconnected && $0.disconnectCause?.code == .error })
        #expect(!service.isRinging)
        #expect(Set(service.changes.suffix(3)) == [.endedBySystem(first), .endedBySystem(second), .ringerStopped])
    }

    // MARK: Foreground service

    @Test func microphoneWithoutRecordAudioThrowsSecurityException() {
        let service = SimulatedForegroundService()
        let permissions = Set(AndroidPermission.allCases).subtracting([.recordAudio])
        #expect(throws: ForegroundServiceError.securityException(.microphone)) {
            try service.start([.phoneCall, .microphone], permissions: permissions, origin: .appInForeground)
        }
        #expect(!service.isRunning)
        try? service.start([.phoneCall], permissions: permissions, origin: .appInForeground)
        #expect(throws: ForegroundServiceError.securityException(.microphone)) {
            try service.start([.microphone], permissions: permissions, origin: .appInForeground)
        }
        #expect(service.types == [.phoneCall])
    }

    @Test func phoneCallTypeNeedsManageOwnCalls() {
        let service = SimulatedForegroundService()
        #expect(throws: ForegroundServiceError.securityException(.phoneCall)) {
            try service.start([.phoneCall], permissions: [.recordAudio], origin: .userAction)
        }
    }

    @Test func backgroundStartWithoutExemptionIsNotAllowedButExemptionsAndRunningServicesAre() throws {
        let all = Set(AndroidPermission.allCases)
        let service = SimulatedForegroundService()
        #expect(throws: ForegroundServiceError.startNotAllowed) {
            try service.start([.phoneCall], permissions: all, origin: .background)
        }
        for origin in [SimulatedForegroundService.Origin.userAction, .highPriorityMessage, .appInForeground] {
            try service.start([.phoneCall], permissions: all, origin: origin)
            service.stop()
        }
        try service.start([.phoneCall], permissions: all, origin: .userAction)
        // A running service may add a type from the background.
        try service.start([.microphone], permissions: all, origin: .background)
        #expect(service.types == [.phoneCall, .microphone])
        service.stop()
        #expect(service.changes.last == .stopped)
        #expect(service.changes.first == .refused(.startNotAllowed))
    }
}
