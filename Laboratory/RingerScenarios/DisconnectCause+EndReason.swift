import RingerWire

extension DisconnectCause {
    /// The shared end reason this cause was made from by ``DisconnectCause/init(endReason:)`` (a remote
    /// ending the app reported), or nil for a local one (`LOCAL`, `REJECTED` by the user, an `ERROR` with the
    /// app's own reason): so one `end_reason` expectation reads both platforms.
    var remoteEndReason: CallEndReason? {
        let reasons: [CallEndReason] = [
            .remoteEnded, .unanswered, .answeredElsewhere, .declinedElsewhere, .failed,
            .answerNotDelivered,
        ]
        return reasons.first { DisconnectCause(endReason: $0) == self }
    }
}
