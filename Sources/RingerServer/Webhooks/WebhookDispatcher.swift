import CurlHTTP
import Foundation
import OpenSSLSupport
import RingerCore
import RingerHTTP
import RingerStore
import RingerSupport
import RingerWire

/// Delivers the webhook outbox (decision 0009 §3): every server runs one. Each round claims due deliveries from the
/// store, which gives each attempt to one server of a cluster, signs each as Standard Webhooks says and sends it on
/// the ``CurlClient``'s thread, then stores how it ended (``WebhookRetryRule``). Calls only write outbox rows in their
/// own transactions: no receiver, however slow or dead, can delay one, and an endpoint holds at most
/// ``perEndpoint`` of the server's ``maximumInFlight`` attempts.
final class WebhookDispatcher: Sendable {
    private let store: any RingerStore
    private let client: CurlClient
    private let secrets: SecretBox?
    private let clock: any ServerClock
    private let log: Logger
    /// This server's incarnation (its heartbeat's name): the claimer of its attempts.
    private let node: String
    /// Seconds one attempt may take (`--webhook-timeout`).
    private let timeout: TimeInterval
    private let allowPrivateAddresses: Bool
    private let rule: WebhookRetryRule
    private let observe: @Sendable (ServerObservation) -> Void
    /// Attempts in flight here, by endpoint.
    private let inFlight = LockedValue<[String: Int]>([:])
    /// Endpoints whose secret this server cannot open, until when it leaves their deliveries to the other servers.
    private let unsignable = LockedValue<[String: Date]>([:])
    private let loop = LockedValue<Task<Void, Never>?>(nil)

    /// Attempts in flight on this server at most.
    static let maximumInFlight = 64
    /// Attempts in flight to one endpoint at most, on this server.
    static let perEndpoint = 4
    /// Seconds between rounds when nothing was due.
    static let pollInterval: TimeInterval = 0.25

    init(
        store: any RingerStore, client: CurlClient, secrets: SecretBox?, clock: any ServerClock, log: Logger,
        node: String, timeout: TimeInterval, allowPrivateAddresses: Bool, rule: WebhookRetryRule = WebhookRetryRule(),
        observe: @escaping @Sendable (ServerObservation) -> Void
    ) {
        self.store = store
        self.client = client
        self.secrets = secrets
        self.clock = clock
        self.log = log
        self.node = node
        self.timeout = timeout
        self.allowPrivateAddresses = allowPrivateAddresses
        self.rule = rule
        self.observe = observe
    }

    /// Starts the rounds.
    func start() {
        loop.withLock { loop in
            guard loop == nil else { return }
            loop = Task { [weak self] in
                while !Task.isCancelled, let self {
                    let claimed = await round()
                    if claimed == 0 {
                        do {
                            try await clock.sleep(until: clock.now().addingTimeInterval(Self.pollInterval))
                        } catch { return }
                    }
                }
            }
        }
    }

    /// Stops the rounds and the client; attempts in flight end with an error and are not stored, so their claims
    /// lapse and another server (or this one, restarted) makes them again.
    func shutdown() {
        loop.withLock { $0?.cancel() }
        client.shutdown()
    }

    /// One round: claims what is due and free to go, and starts each attempt.
    /// - Returns: how many were claimed.
    @discardableResult
    func round() async -> Int {
        let counts = inFlight.snapshot
        let room = Self.maximumInFlight - counts.values.reduce(0, +)
        guard room > 0 else { return 0 }
        // An endpoint this server cannot sign for is claimed as if full: another server takes its deliveries.
        let now = clock.now()
        var passed = counts
        let waiting: [String: Date] = unsignable.withLock { state in
            state = state.filter { $0.value > now }
            return state
        }
        for endpoint in waiting.keys { passed[endpoint] = Self.perEndpoint }
        let claimed: [ClaimedWebhookDelivery]
        do {
            claimed = try await store.claimWebhookDeliveries(
                at: now, by: node, lease: timeout * 2 + 30, limit: room, perEndpoint: Self.perEndpoint,
                inFlight: passed, nodeDeadAfter: CallService.nodeDeadAfter)
        } catch {
            log.error("webhook claim failed", ["error": .string("\(error)")])
            return 0
        }
        for delivery in claimed {
            inFlight.withLock { $0[delivery.endpoint.info.endpointID, default: 0] += 1 }
            Task { [self] in
                await attempt(delivery)
                inFlight.withLock { counts in
                    let id = delivery.endpoint.info.endpointID
                    counts[id] = (counts[id] ?? 1) - 1
                    if counts[id] == 0 { counts[id] = nil }
                }
            }
        }
        return claimed.count
    }

    /// How long a delivery this server cannot sign waits before it is offered again (to any server), seconds.
    static let postponement: TimeInterval = 60

    /// Signs and sends one delivery, then stores how it ended.
    private func attempt(_ delivery: ClaimedWebhookDelivery) async {
        let endpoint = delivery.endpoint.info
        let metadata: Logger.Metadata = [
            "webhook.endpoint": .string(endpoint.endpointID), "webhook.delivery": .string("\(delivery.deliveryID)"),
        ]
        let started = clock.now()
        let headers: [(String, String)]
        do {
            headers = try signedHeaders(delivery, at: started)
        } catch {
            // This server cannot open the endpoint's secret (no --secrets-key, or not the one it was sealed with): it
            // sends nothing and counts no attempt; the delivery is offered again later, to a server that can.
            log.error("a webhook secret cannot be opened here", metadata.merging(["error": .string("\(error)")]) { $1 })
            leaveToOthers(endpoint.endpointID, until: started.addingTimeInterval(Self.postponement))
            await finish(
                delivery,
                .postponed(
                    error: "this server cannot open the endpoint's secret: \(error)",
                    retryAt: started.addingTimeInterval(Self.postponement)), seconds: 0, metadata)
            return
        }
        let response = await client.send(
            OutgoingRequest(
                url: endpoint.url, headers: headers, body: Array(delivery.payload.utf8), timeout: timeout,
                allowPrivateAddresses: allowPrivateAddresses))
        // Cut short by this server's shutdown: nothing is stored, the claim lapses, and the attempt is made again.
        guard !response.cancelled else { return }
        let now = clock.now()
        let attempts = delivery.attempts + 1
        let decision = rule.decide(
            status: response.status, attempts: attempts,
            retryAfter: RetryAfter.seconds(response.retryAfter, now: now), now: now, jitter: Double.random(in: 0...1))
        let outcome: WebhookAttemptOutcome
        switch decision {
        case .delivered:
            outcome = .delivered(status: response.status ?? 200)
        case .endpointGone:
            outcome = .endpointGone
            log.warning("webhook endpoint disabled: it answered 410 Gone", metadata)
        case .retry(let at):
            outcome = .failed(status: response.status, error: Self.describe(response), retryAt: at)
        case .failed:
            outcome = .failed(status: response.status, error: Self.describe(response), retryAt: nil)
            log.warning(
                "webhook delivery failed for good", metadata.merging(["error": .string(Self.describe(response))]) { $1 }
            )
        }
        await finish(delivery, outcome, seconds: now.timeIntervalSince(started), metadata)
    }

    /// Leaves an endpoint's deliveries to the other servers for a while.
    private func leaveToOthers(_ endpoint: String, until: Date) {
        unsignable.withLock { $0[endpoint] = until }
    }

    /// Stores an attempt's outcome (if this server still holds the claim) and counts it.
    private func finish(
        _ delivery: ClaimedWebhookDelivery, _ outcome: WebhookAttemptOutcome, seconds: TimeInterval,
        _ metadata: Logger.Metadata
    ) async {
        observe(.webhookAttempt(outcome, seconds: seconds))
        do {
            try await store.finishWebhookDelivery(delivery, by: node, at: clock.now(), outcome: outcome)
        } catch {
            log.error("storing a webhook attempt failed", metadata.merging(["error": .string("\(error)")]) { $1 })
        }
    }

    /// Standard Webhooks' headers: `webhook-id`, `webhook-timestamp` (Unix seconds of this attempt) and
    /// `webhook-signature`, one `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` per secret that signs (the rotated-out
    /// one too, until it expires).
    /// - Throws: ``SecretBox/Failure`` when a secret does not open (or no box).
    private func signedHeaders(_ delivery: ClaimedWebhookDelivery, at now: Date) throws -> [(String, String)] {
        guard let secrets else { throw SecretBox.Failure.unknownKey("none (no --secrets-key)") }
        let timestamp = String(Int64(now.timeIntervalSince1970))
        let context = WebhookEndpoints.sealingContext(delivery.endpoint.info.endpointID)
        var keys = [try secrets.open(delivery.endpoint.sealedSecret, context: context)]
        // A rotated-out secret sealed under a secrets key since dropped cannot sign any more: the current one still
        // does, and a receiver verifies with either.
        if let previous = delivery.endpoint.sealedPreviousSecret,
            let expires = delivery.endpoint.info.previousSecretExpiresAt, expires > now,
            let key = try? secrets.open(previous, context: context)
        {
            keys.append(key)
        }
        let signed = Array("\(delivery.eventID).\(timestamp).".utf8) + Array(delivery.payload.utf8)
        let signatures = keys.compactMap { key in
            SHA256Digest.hmac(signed, key: key).map { "v1," + Data($0).base64EncodedString() }
        }
        return [
            ("content-type", "application/json"), ("user-agent", "Ringer-Webhooks/1"),
            ("webhook-id", delivery.eventID), ("webhook-timestamp", timestamp),
            ("webhook-signature", signatures.joined(separator: " ")),
        ]
    }

    /// Why an attempt failed, in words for the delivery's `last_error`.
    private static func describe(_ response: OutgoingResponse) -> String {
        if let error = response.error { return error }
        guard let status = response.status else { return "no answer" }
        return (300...399).contains(status) ? "HTTP \(status) (redirects are not followed)" : "HTTP \(status)"
    }
}
