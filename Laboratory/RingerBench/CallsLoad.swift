import CurlHTTP
import Foundation
import RingerSupport

/// The calls part's load generator: `POST /v1/calls` from the set-up's callers to their callees, round-robin, over
/// libcurl's multi interface on one thread (``CurlClient``, keep-alive connections), so that the generator costs a
/// few per cent of a core at thousands of calls a second and leaves the machine to the server it measures. The same
/// generator drives Ringer and its peer (Tests/Peers/bench_gateway.py).
struct CallsLoad: Sendable {
    /// One caller and its callee, as the set-up script wrote them.
    struct Pair: Decodable, Sendable {
        /// The caller's user token.
        var token: String
        /// The callee's user id.
        var callee: String
    }

    /// What one step measured.
    struct Step: Hashable, Sendable {
        /// Calls due by the schedule (open) or placed (closed).
        var offered = 0
        /// Arrivals skipped because ``maxInFlight`` calls were unanswered (open loop only).
        var skipped = 0
        /// Calls answered 201.
        var ok = 0
        /// The first answer that was not 201, if any.
        var firstFailure: String?
        /// CLOCK_MONOTONIC seconds of the first call.
        var windowStart = 0.0
        /// CLOCK_MONOTONIC seconds of the last answer.
        var windowEnd = 0.0

        /// Seconds from the first call to the last answer.
        var windowSeconds: Double { max(windowEnd - windowStart, 1e-9) }
        /// Calls answered 201 per second of the window.
        var callsPerSecond: Double { Double(ok) / windowSeconds }
    }

    /// Calls an open-loop step may have unanswered before it skips arrivals.
    static let maxInFlight = 2000
    /// Seconds a call may take before it counts as failed.
    static let timeoutSeconds = 10.0

    private let client: CurlClient
    private let url: String
    /// One prepared request body and header list per pair.
    private let requests: [(body: [UInt8], headers: [(String, String)])]

    /// - Parameters:
    ///   - baseURL: `http://127.0.0.1:<port>` of the server.
    ///   - pairs: the set-up's callers and callees, at least one.
    ///   - connections: keep-alive connections at most (the closed loop's concurrency).
    init(baseURL: String, pairs: [Pair], connections: Int) {
        client = CurlClient(maximumConnections: connections)
        url = baseURL + "/v1/calls"
        requests = pairs.map { pair in
            (
                Array(#"{"callee":"\#(pair.callee)","has_video":false}"#.utf8),
                [("Authorization", "Bearer \(pair.token)"), ("Content-Type", "application/json")]
            )
        }
    }

    /// Ends the client's thread.
    func shutdown() { client.shutdown() }

    /// An open loop: a call every 1/`rate` s for `seconds`, whatever the answers.
    func open(rate: Int, seconds: Double) async -> Step {
        let total = Int((Double(rate) * seconds).rounded())
        let state = LockedValue(Step())
        let inFlight = LockedValue(0)
        let start = ProcFiles.monotonicSeconds()
        state.withLock { $0.windowStart = start }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                let due = start + Double(index) / Double(rate)
                let wait = due - ProcFiles.monotonicSeconds()
                if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                let admitted = inFlight.withLock { count -> Bool in
                    guard count < Self.maxInFlight else { return false }
                    count += 1
                    return true
                }
                state.withLock {
                    $0.offered += 1
                    if !admitted { $0.skipped += 1 }
                }
                guard admitted else { continue }
                group.addTask {
                    await self.place(index, into: state)
                    inFlight.withLock { $0 -= 1 }
                }
            }
        }
        return state.withLock { $0 }
    }

    /// A closed loop: `concurrency` calls in flight, a new one as soon as one is answered, for `seconds`.
    func closed(concurrency: Int, seconds: Double) async -> Step {
        let state = LockedValue(Step())
        let next = LockedValue(0)
        let start = ProcFiles.monotonicSeconds()
        state.withLock { $0.windowStart = start }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while ProcFiles.monotonicSeconds() < start + seconds {
                        let index = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        state.withLock { $0.offered += 1 }
                        await self.place(index, into: state)
                    }
                }
            }
        }
        return state.withLock { $0 }
    }

    /// Places call number `index` (pair `index` mod the pairs) and records its answer.
    private func place(_ index: Int, into state: LockedValue<Step>) async {
        let request = requests[index % requests.count]
        let response = await client.send(
            OutgoingRequest(
                url: url, headers: request.headers, body: request.body, timeout: Self.timeoutSeconds,
                allowPrivateAddresses: true))
        let now = ProcFiles.monotonicSeconds()
        state.withLock { step in
            step.windowEnd = max(step.windowEnd, now)
            if response.status == 201 {
                step.ok += 1
            } else if step.firstFailure == nil {
                step.firstFailure = response.status.map { "status \($0)" } ?? response.error ?? "no answer"
            }
        }
    }
}
