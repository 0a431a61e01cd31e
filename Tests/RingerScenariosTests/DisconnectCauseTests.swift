@testable import RingerScenarios
import RingerWire
import Testing

/// `DisconnectCause` reads the phone host's `call_ended` causes: Android's constants by name and value, and the
/// causes the Kotlin SDK makes from end reasons (docs/android-integration.md, "End reasons"), read back as those
/// reasons so one `end_reason` expectation reads both platforms.
@Suite struct DisconnectCauseTests {
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

    @Test func eachEndReasonMapsToItsCauseAndIsReadBackFromIt() {
        let cases: [(CallEndReason, DisconnectCause)] = [
            (.remoteEnded, DisconnectCause(.remote)), (.unanswered, DisconnectCause(.missed)),
            (.answeredElsewhere, DisconnectCause(.answeredElsewhere)),
            (.declinedElsewhere, DisconnectCause(.rejected, reason: "declined elsewhere")),
            (.failed, DisconnectCause(.error)),
            (.answerNotDelivered, DisconnectCause(.error, reason: "answer not delivered")),
        ]
        for (reason, cause) in cases {
            #expect(DisconnectCause(endReason: reason) == cause, "\(reason)")
            #expect(cause.remoteEndReason == reason, "\(cause)")
        }
        #expect(DisconnectCause(endReason: "something_new") == DisconnectCause(.unknown, reason: "something_new"))
        // The user's own endings are no remote reason.
        #expect(DisconnectCause(.local).remoteEndReason == nil)
        #expect(DisconnectCause(.rejected).remoteEndReason == nil)
        #expect(DisconnectCause(.error, reason: "the app's process died").remoteEndReason == nil)
    }
}
