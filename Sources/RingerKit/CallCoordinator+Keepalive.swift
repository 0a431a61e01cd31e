import Foundation
import RingerSupport
public import RingerWire

/// Answered calls kept alive on the server while the event stream is down.
extension CallCoordinator {
    // MARK: Keepalive

    /// Tells the coordinator how the event stream is doing (pass every ``EventStream/Status``): while it is
    /// connected the server hears this app on it, otherwise answered calls send keepalives.
    public func eventStreamStatusChanged(_ status: EventStream.Status) {
        let connected = status == .connected || status == .restored
        state.withLock { $0.streamConnected = connected }
    }

    /// Runs the keepalive loop of an answered call until it ends here: every ``keepaliveInterval`` seconds,
    /// a keepalive when the event stream is not connected. A refusal (the server ended the call, e.g.
    /// `connection_lost` while this app could not reach it) closes the native call with the server's reason.
    func keepAlive(callID: String) {
        guard state.withLock({ $0.keptAlive.insert(callID).inserted }) else { return }
        let (sleepUntil, interval) = (self.sleepUntil, keepaliveInterval)
        // The rounds count from the answer, not from whenever the task first runs.
        let answeredAt = now()
        Task { [weak self] in
            defer { _ = self?.state.withLock { $0.keptAlive.remove(callID) } }
            var next = answeredAt
            while true {
                next = next.addingTimeInterval(interval)
                guard (try? await sleepUntil(next)) != nil, let self else { return }
                let (active, connected, session) = self.state.withLock { state in
                    (state.machine.phase(of: callID) == .active, state.streamConnected, state.session)
                }
                guard active else { return }
                guard !connected, case .loggedIn(let api) = session else { continue }
                do {
                    try await api.keepalive(callID: callID)
                } catch let error as RingerAPIError where error.problem.map({ (400..<500).contains($0.status) }) == true
                {
                    // The call is over on the server: read why, then close it here.
                    let call = try? await api.call(id: callID)
                    self.apply(.keepaliveRefused(callID: callID, call: call))
                    return
                } catch {
                    continue  // no answer: the next round tries again
                }
            }
        }
    }
}
