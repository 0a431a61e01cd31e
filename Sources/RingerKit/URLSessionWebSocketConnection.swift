import Foundation
import RingerSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `URLSessionWebSocketTask` and the session whose delegate it is, for ``URLSessionWebSocketTransport``.
///
/// Its phase moves once from opening to open to closed (or from opening straight to closed); whichever
/// event gets there first — open, failure, close, timeout, cancellation, ``close()`` — wins, so `open`
/// resumes exactly once and `onClose` runs at most once. The session holds its delegate strongly until
/// it is invalidated, which every path to closed does. Thread-safe.
final class URLSessionWebSocketConnection: NSObject, URLSessionWebSocketDelegate, WebSocketChannel, Sendable {
    private enum Phase {
        case idle
        case opening(CheckedContinuation<Void, any Error>)
        case open
        case closed
    }

    private struct State {
        var phase = Phase.idle
        var session: URLSession?
        var task: URLSessionWebSocketTask?
    }

    private let onText: @Sendable (String) -> Void
    private let onClose: @Sendable (WebSocketClose) -> Void
    private let state = LockedValue(State())

    init(onText: @escaping @Sendable (String) -> Void, onClose: @escaping @Sendable (WebSocketClose) -> Void) {
        self.onText = onText
        self.onClose = onClose
    }

    /// Starts the task and returns once the socket opened; then starts receiving.
    /// - Throws: ``WebSocketUpgradeRefused`` when the server answered with another status than 101;
    ///   ``URLSessionWebSocketError`` for the other failures.
    func open(url: URL, headers: [String: String], timeout: TimeInterval) async throws {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = URLSession(configuration: .default, delegate: self, delegateQueue: nil)
        let task = session.webSocketTask(with: request)
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            self?.finish(URLSessionWebSocketError.timedOut(after: timeout))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let start = state.withLock { state -> Bool in
                    guard case .idle = state.phase else { return false }
                    state.phase = .opening(continuation)
                    state.session = session
                    state.task = task
                    return true
                }
                if start {
                    task.resume()
                } else {
                    session.invalidateAndCancel()
                    continuation.resume(throwing: URLSessionWebSocketError.cancelled)
                }
            }
        } onCancel: {
            finish(URLSessionWebSocketError.cancelled)
        }
        receiveNext()
    }

    /// Closes the socket with status 1000 (normal closure); `onClose` follows once, with 1000.
    func close() {
        finish(URLSessionWebSocketError.closedBeforeOpen, close: .normal)
    }

    /// One receive at a time, so frames are delivered in order.
    private func receiveNext() {
        guard
            let task = state.withLock({ state -> URLSessionWebSocketTask? in
                guard case .open = state.phase else { return nil }
                return state.task
            })
        else { return }
        task.receive { [weak self] result in
            switch result {
            case .success(let message):
                if case .string(let text) = message { self?.onText(text) }
                self?.receiveNext()
            case .failure(let error):
                self?.finish(URLSessionWebSocketError.failed(String(describing: error)))
            }
        }
    }

    /// Moves to closed: fails a pending open with `error`, or reports the close of an open socket: `close`
    /// when given, else the close frame the task received (RFC 6455 §7.1.5), else 1006.
    private func finish(_ error: any Error, close: WebSocketClose? = nil) {
        let (phase, session, task) = state.withLock { state in
            defer {
                state.phase = .closed
                state.session = nil
                state.task = nil
            }
            return (state.phase, state.session, state.task)
        }
        let received = task.flatMap(Self.receivedClose(of:))
        task?.cancel(with: .normalClosure, reason: nil)
        session?.invalidateAndCancel()
        switch phase {
        case .opening(let continuation): continuation.resume(throwing: error)
        case .open: onClose(close ?? received ?? .abnormal)
        case .idle, .closed: break
        }
    }

    /// The close frame the server sent, if one arrived (`closeCode` stays `.invalid` until then).
    private static func receivedClose(of task: URLSessionWebSocketTask) -> WebSocketClose? {
        guard task.closeCode != .invalid else { return nil }
        return WebSocketClose(
            code: UInt16(clamping: task.closeCode.rawValue),
            reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    // MARK: URLSessionWebSocketDelegate

    /// The server accepted the upgrade: `open` returns.
    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard case .opening(let continuation) = state.phase else { return nil }
            state.phase = .open
            return continuation
        }
        continuation?.resume()
    }

    /// The server closed the socket with this close frame.
    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        finish(
            URLSessionWebSocketError.closedBeforeOpen,
            close: WebSocketClose(
                code: UInt16(clamping: closeCode.rawValue),
                reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? ""))
    }

    /// The task ended: a failed connection (a refused upgrade leaves its HTTP response on the task), or
    /// the end of an open one.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let status = (task.response as? HTTPURLResponse)?.statusCode, status != 101 {
            finish(WebSocketUpgradeRefused(status: status))
        } else {
            finish(URLSessionWebSocketError.failed(error.map { String(describing: $0) } ?? "connection ended"))
        }
    }
}
