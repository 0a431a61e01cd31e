import CLWS
import RingerSupport

/// The cross-thread inbox of one lws context.
///
/// Other threads `post` work; the first post after the service thread took everything wakes it through
/// `lws_cancel_service` (documented as safe from any thread), whose `LWS_CALLBACK_EVENT_WAIT_CANCELLED` handler then
/// `drain`s the queue until it is empty: posts in between need no wake-up of their own. The context pointer lives
/// under the same lock so that no wake-up can reach a context that the service thread has started to destroy.
final class ServiceMailbox<Message: Sendable>: Sendable {
    private struct State {
        var context: OpaquePointer?
        var messages: [Message] = []
        /// How many of `messages`, at the front, were posted `first`.
        var firstCount = 0
        var stopRequested = false
        var closed = false
        /// The service thread was woken for the messages queued and has not taken them yet, or takes messages
        /// until none is left (``drain()``): a post then needs no wake-up of its own.
        var awake = false
    }

    private let state = LockedValue(State())

    /// Records the context to wake; called once, right after `lws_create_context`.
    func attach(context: OpaquePointer) {
        state.withLock { $0.context = context }
    }

    /// Queues `message` and wakes the service thread.
    /// - Parameters:
    ///   - message: the message.
    ///   - first: ahead of the messages posted without it (still behind earlier ones posted with it): a job of a
    ///     high-priority task, such as a ringing push, before the next request's.
    /// - Returns: `false` when the context is gone (or not yet attached) and the message was dropped.
    @discardableResult
    func post(_ message: Message, first: Bool = false) -> Bool {
        state.withLock { state in
            guard !state.closed, let context = state.context else { return false }
            if first {
                state.messages.insert(message, at: state.firstCount)
                state.firstCount += 1
            } else {
                state.messages.append(message)
            }
            if !state.awake {
                state.awake = true
                lws_cancel_service(context)
            }
            return true
        }
    }

    /// Wakes the service thread with nothing queued. On a libuv loop, lws re-arms its timer of pending
    /// timeouts only after an event of its own; the wrapper's handles (accept, keepalive tick) call this
    /// after setting timeouts from outside lws, so that they fire on time.
    func wake() {
        state.withLock { state in
            guard !state.closed, let context = state.context else { return }
            lws_cancel_service(context)
        }
    }

    /// Takes every queued message, oldest first. Service thread only, which calls it again until it returns none
    /// (or ``requeueAndWake(_:)``): until then, later posts wake nobody, as they will be taken anyway.
    func drain() -> [Message] {
        state.withLock { state in
            guard !state.messages.isEmpty else {
                state.awake = false
                return []
            }
            state.awake = true
            let taken = state.messages
            state.messages = []
            state.firstCount = 0
            return taken
        }
    }

    /// Puts `messages`, taken by ``drain()`` and not handled, back in front and wakes the service thread for them:
    /// its turn ends so that the sockets are served, and the next turn goes on.
    func requeueAndWake(_ messages: [Message]) {
        state.withLock { state in
            state.messages.insert(contentsOf: messages, at: 0)
            state.firstCount = 0
            state.awake = true
            if let context = state.context { lws_cancel_service(context) }
        }
    }

    /// Asks the service loop to stop and wakes it.
    /// - Returns: `false` when it had been asked already.
    @discardableResult
    func requestStop() -> Bool {
        state.withLock { state in
            guard !state.stopRequested else { return false }
            state.stopRequested = true
            if let context = state.context { lws_cancel_service(context) }
            return true
        }
    }

    /// Whether `requestStop` was called.
    var isStopRequested: Bool {
        state.withLock { $0.stopRequested }
    }

    /// Forgets the context before it is destroyed; later posts are dropped.
    /// - Returns: the messages still queued, which nobody will handle here.
    @discardableResult
    func close() -> [Message] {
        state.withLock { state in
            state.closed = true
            state.context = nil
            let left = state.messages
            state.messages = []
            state.firstCount = 0
            return left
        }
    }
}
