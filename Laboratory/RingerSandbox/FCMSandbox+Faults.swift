import Foundation
import RingerHTTP
import RingerSupport

/// Fault injection: answers with FCM's error codes, delays, silence, cut connections, revoked tokens.
extension FCMSandbox {
    /// Adds a fault; it applies to requests that arrive from now on.
    /// - Parameter fault: what to do to which requests, how many times.
    public func inject(_ fault: FCMSandboxFault) {
        state.withLock { $0.faults.append(fault) }
    }

    /// Revokes a registration token, as FCM does when the app is uninstalled or the token expires: later
    /// sends to it get 404 `UNREGISTERED` (the same as ``unregister(token:at:)`` now).
    public func revoke(token: String) {
        unregister(token: token, at: now())
    }

    /// Removes every fault; answers become normal.
    public func clearFaults() {
        state.withLock { $0.faults = [] }
    }

    /// Faults still in force (with what is left of their counts), oldest first.
    public var activeFaults: [FCMSandboxFault] {
        state.withLock { $0.faults }
    }

    /// Applies the oldest fault matching a request, using up one of its count.
    /// - Parameters:
    ///   - endpoint: the request's endpoint.
    ///   - token: a send's `message.token`, if any.
    ///   - listener: the server it came through (a never-answered HTTP/1.1 request is held only as long as
    ///     libwebsockets keeps it).
    /// - Returns: the answer to give instead of handling the request, or nil to handle it (no fault, or a
    ///   delay that has passed).
    func applyFault(endpoint: FCMSandboxFault.Endpoint, token: String?, via listener: Listener) async -> HTTPResponse? {
        let behavior = state.withLock { state -> FCMSandboxFault.Behavior? in
            guard let index = state.faults.firstIndex(where: { $0.matches(endpoint: endpoint, token: token) }) else {
                return nil
            }
            let fault = state.faults[index]
            if let count = fault.count {
                if count <= 1 {
                    state.faults.remove(at: index)
                } else {
                    state.faults[index].count = count - 1
                }
            }
            state.statistics.faultedRequests += 1
            return fault.behavior
        }
        guard let behavior else { return nil }
        // What a handler returns for a stream or connection that went away is dropped by the server anyway.
        let dropped = HTTPResponse(status: 503)
        switch behavior {
        case .answer(let rejection, let retryAfter):
            log.info("FCM sandbox answered with a fault", ["fcm.error_code": .string(rejection.code)])
            return Self.response(rejection, retryAfter: retryAfter)
        case .delay(let seconds):
            do {
                try await Task.sleep(for: .seconds(seconds))
            } catch {
                return dropped
            }
            return nil
        case .neverAnswer:
            let limit = listener == .http1 ? TimeInterval(configuration.http1RequestTimeout) + 5 : .infinity
            let start = ContinuousClock.now
            // Held until the server cancels the handler (stream reset, connection closed), the sandbox stops,
            // or libwebsockets has surely closed the connection.
            while !Task.isCancelled, state.withLock({ $0.isRunning }),
                (ContinuousClock.now - start) < .seconds(min(limit, 86_400))
            {
                try? await Task.sleep(for: .milliseconds(200))
            }
            return dropped
        case .closeConnection:
            return HTTPResponse.closeConnection
        }
    }
}
