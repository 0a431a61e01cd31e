import Foundation
import RingerSupport
import RingerStore
import RingerWire

/// Sends one push through its provider's sender, retries what may succeed later within the push's
/// deadline, and carries out the final answer: the one place that removes a dead token (compare-and-
/// delete), marks a device, reports a configuration error, logs and records the outcome. Every send's
/// outcome also goes to the outage rule (``PushSetupHealth/recordAttempt(_:scope:at:)``).
///
/// Reads only the server's injected clock, so a scenario's scaled clock governs deadlines and backoffs.
final class PushDelivery: Sendable {
    private let store: any RingerStore
    private let health: PushSetupHealth
    private let clock: any ServerClock
    private let policy: PushRetryPolicy
    private let log: Logger
    private let observe: @Sendable (ServerObservation) -> Void

    /// Creates the delivery.
    /// - Parameters:
    ///   - store: where outcomes are recorded and dead tokens removed.
    ///   - health: the `/healthz` record of configuration errors and outages, told of every send's outcome.
    ///   - clock: the server's clock, for deadlines and backoffs.
    ///   - policy: when a retryable answer is sent again.
    ///   - log: the server's logger.
    ///   - observe: told of every push's outcome.
    init(
        store: any RingerStore, health: PushSetupHealth, clock: any ServerClock, policy: PushRetryPolicy = .init(),
        log: Logger, observe: @escaping @Sendable (ServerObservation) -> Void
    ) {
        self.store = store
        self.health = health
        self.clock = clock
        self.policy = policy
        self.log = log
        self.observe = observe
    }

    /// Sends `request` through `sender` until it is accepted, fails for good, or its deadline leaves no
    /// room for another try; then acts on the last answer and records it.
    func deliver<Sender: PushSender>(_ request: PushRequest, via sender: Sender) async {
        let metadata: Logger.Metadata = [
            "call.id": .string(request.call.callID), "device.id": .string(request.device.deviceID),
            "push.provider": .string(sender.provider.rawValue),
        ]
        let message: Sender.Message
        do {
            guard let built = try sender.message(for: request) else { return }
            message = built
        } catch {
            // Ringer's own failure, not the provider's: recorded like a push, so the call shows why it did not ring.
            log.error("cannot build the push", metadata.merging(["error": .string("\(error)")]) { $1 })
            record(
                PushAttempt(
                    callID: request.call.callID, deviceID: request.device.deviceID, provider: sender.provider,
                    pushType: sender.pushType(for: request), status: nil,
                    reason: "\(Self.unbuiltReason): \(error)", apnsID: nil, latencyMs: 0, attempts: 0,
                    sentAt: clock.now(), readiness: request.device.readinessProblems,
                    userID: request.recordedUserID), observed: false)
            return
        }
        let sentAt = clock.now()
        let started = ContinuousClock.now
        var sends = 0
        var requests = 0
        var last: PushAnswer?
        while true {
            let now = clock.now()
            let left = request.deadline.timeIntervalSince(now)
            if left <= 0 { break }
            let sent = await sender.send(message, for: request, now: now, timeout: clock.realSeconds(left))
            last = sent
            sends += 1
            requests += sent.requests
            if let outcome = sent.providerOutcome {
                health.recordAttempt(outcome, scope: sender.scope(of: message, for: request), at: clock.now())
            }
            let after = clock.now()
            guard
                let delay = policy.delay(
                    afterSends: sends, action: sent.action, now: after,
                    deadline: request.deadline, jitter: Double.random(in: 0...1))
            else { break }
            do {
                try await clock.sleep(until: after.addingTimeInterval(delay))
            } catch {
                break
            }
        }
        // Past the deadline the provider's last answer stands (a retry that came too late says nothing new about the
        // push); with none, the record says the push never went out.
        let answer =
            last
            ?? PushAnswer(
                status: nil, reason: "the push's deadline passed before it was sent", action: .retry(after: nil),
                requests: 0)
        let elapsed = started.duration(to: .now)
        let latency = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        await settle(answer, message: message, request: request, sender: sender, sentAt: sentAt, metadata: metadata)
        let attempt = PushAttempt(
            callID: request.call.callID, deviceID: request.device.deviceID, provider: sender.provider,
            pushType: sender.pushType(of: message), status: answer.status, reason: answer.reason,
            apnsID: sender.apnsID(of: message),
            messageName: answer.messageName, latencyMs: latency, attempts: requests,
            sentAt: sentAt, readiness: request.device.readinessProblems,
            userID: request.recordedUserID)
        record(attempt, observed: true)
    }

    /// The `reason` that starts the record of a push Ringer could not build (nothing was sent).
    static let unbuiltReason = "RingerCouldNotBuildPush"

    /// Records whose commit has not been heard yet; shutdown waits for them (``drainRecords(timeout:)``).
    private let recording = InFlightWork()

    /// Hands the outcome to the store without waiting for it, and, once it is stored (or failed), tells the
    /// observers of a sent push when `observed`: the push's task ends at once instead of waiting to be resumed after
    /// the store's commit, one crossing between threads less per push (issue 33).
    private func record(_ attempt: PushAttempt, observed: Bool) {
        // Past the drain's start a record is still written, only not waited for.
        let tracked = recording.enter()
        store.recordPushAttempt(attempt) { [log, observe, recording] error in
            if let error {
                log.error(
                    "cannot record push outcome", ["call.id": .string(attempt.callID), "error": .string("\(error)")])
            }
            if observed { observe(.pushSent(attempt)) }
            if tracked { recording.leave() }
        }
    }

    /// Waits until the outcomes handed to the store are stored, at most `timeout` seconds (shutdown, after the
    /// pushes' own drain).
    /// - Returns: how many were still unstored when it gave up.
    func drainRecords(timeout: TimeInterval) async -> Int {
        await recording.drain(timeout: timeout)
    }

    /// Carries out the final answer's action.
    private func settle<Sender: PushSender>(
        _ answer: PushAnswer, message: Sender.Message, request: PushRequest,
        sender: Sender, sentAt: Date, metadata base: Logger.Metadata
    ) async {
        var metadata = base
        metadata["push.type"] = .string(sender.pushType(of: message).rawValue)
        metadata["push.status"] = .string(answer.status.map(String.init) ?? "none")
        if let reason = answer.reason { metadata["push.reason"] = .string(reason) }
        if let id = sender.apnsID(of: message) { metadata["apns.id"] = .string(id) }
        if let alert = answer.operatorAlert { log.error(alert, metadata) }
        let scope = sender.scope(of: message, for: request)
        switch answer.action {
        case .accepted:
            log.info("push accepted", metadata)
            if let cleared = health.recordSuccess(scope, at: sentAt) {
                log.log(
                    .notice, "\(sender.provider) accepts pushes again",
                    metadata.merging(scope.logMetadata) { $1 }
                        .merging(["push.refused_count": .string(String(cleared.count))]) { $1 })
            }
        case .removeToken(let invalidSince):
            log.warning("push not accepted", metadata)
            await forget(
                sender.token(of: message), of: request, invalidSince: invalidSince ?? sentAt, reason: answer.reason)
        case .flagDevice:
            log.warning("push not accepted", metadata)
            await flag(sender.token(of: message), of: request, reason: answer.reason ?? "", at: sentAt, scope: scope)
        case .configurationError
        where answer.marksDevice && health.hasSucceeded(scope, since: sentAt.addingTimeInterval(-Self.recentSuccess)):
            // The scope accepted pushes lately, so its set-up works: the refusal is this device's (a token of
            // another Firebase project). Health stays as it is; the device is marked.
            log.warning("push not accepted", metadata)
            await flag(sender.token(of: message), of: request, reason: answer.reason ?? "", at: sentAt, scope: scope)
        case .configurationError:
            // Every push to this scope fails the same way until the operator fixes the set-up.
            let reason = answer.healthReason ?? answer.reason ?? "HTTP \(answer.status ?? 0)"
            if health.record(scope, reason: reason, at: sentAt) {
                var fields = metadata.merging(scope.logMetadata) { $1 }
                if let hint = PushSetupHealth.hint(reason: reason, detail: nil) { fields["hint"] = .string(hint) }
                log.error(
                    "\(sender.provider) refuses the server's configuration; pushes to this scope fail until it is fixed",
                    fields)
            }
            if answer.marksDevice {
                await flag(
                    sender.token(of: message), of: request, reason: answer.reason ?? "", at: sentAt, scope: scope)
            }
        case .invalidRequest:
            log.error("\(sender.provider) refused a request Ringer built", metadata)
        case .retry:
            log.warning("push not accepted", metadata)
        }
    }

    /// Seconds within which an accepted push proves a scope's set-up works.
    static let recentSuccess: TimeInterval = 3600

    /// Marks the device whose token was refused; keeps the token (APNs gives the same answer for a token of
    /// the other environment: Apple, "Handling notification responses from APNs"), so the app's next
    /// registration fixes it.
    private func flag(
        _ token: (kind: PushTokenKind, value: String), of request: PushRequest, reason: String, at date: Date,
        scope: PushScope
    ) async {
        log.warning(
            "a device token was refused; kept, and the device is marked until the app registers again",
            ["device.id": .string(request.device.deviceID), "push.reason": .string(reason)]
                .merging(scope.logMetadata) { $1 })
        do {
            _ = try await store.flagPushToken(token.value, kind: token.kind, problem: reason, at: date)
        } catch {
            log.error(
                "cannot mark a device's push problem",
                [
                    "device.id": .string(request.device.deviceID),
                    "error": .string("\(error)"),
                ])
        }
    }

    /// Removes a token the provider reported gone, unless the app registered it again since (Apple:
    /// "Handling notification responses from APNs"; Google: "Best practices for FCM registration token
    /// management": stop sending to a token reported `UNREGISTERED`).
    private func forget(
        _ token: (kind: PushTokenKind, value: String), of request: PushRequest, invalidSince: Date,
        reason: String?
    ) async {
        do {
            let removed = try await store.removeDeadPushToken(token.value, kind: token.kind, invalidSince: invalidSince)
            if removed { observe(.deadTokenRemoved(token.kind == .fcm ? .fcm : .apns)) }
            log.info(
                removed
                    ? "removed a push token the provider reported gone" : "kept a push token registered again since",
                ["device.id": .string(request.device.deviceID), "push.reason": .string(reason ?? "")])
        } catch {
            log.error(
                "cannot remove a dead push token",
                [
                    "device.id": .string(request.device.deviceID),
                    "error": .string("\(error)"),
                ])
        }
    }
}
