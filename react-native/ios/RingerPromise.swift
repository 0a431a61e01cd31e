import Foundation

/// A JavaScript promise as React Native hands one to a module method (`RCTPromiseResolveBlock`,
/// `RCTPromiseRejectBlock`), settled exactly once from a task: with a method's value in the Foundation form the
/// bridge converts to JavaScript, or with a ``RingerBridgeError``'s code, message and `NSError`.
struct RingerPromise: @unchecked Sendable {
    // @unchecked: React Native's promise blocks may be called from any thread; each is called once, by `settle`.
    private let resolve: (Any?) -> Void
    private let reject: (String, String, NSError) -> Void

    /// Wraps React Native's two blocks.
    /// - Parameters:
    ///   - resolve: `RCTPromiseResolveBlock`.
    ///   - reject: `RCTPromiseRejectBlock` (code, message, error).
    init(resolve: @escaping (Any?) -> Void, reject: @escaping (String, String, NSError) -> Void) {
        self.resolve = resolve
        self.reject = reject
    }

    /// Runs `body` and resolves with its value, encoded with its own keys (``BridgeJSON``), or rejects with the
    /// error it threw as ``RingerBridgeError/init(_:)`` classifies it. Returns at once.
    /// - Parameter body: the method's work.
    func settle<Value: Encodable & Sendable>(_ body: @escaping @Sendable () async throws -> Value) {
        run { BridgeJSON.foundationObject(try await body()) }
    }

    /// Runs `body` and resolves with nothing (JavaScript's `undefined`), or rejects as above. Returns at once.
    /// - Parameter body: the method's work.
    func settle(_ body: @escaping @Sendable () async throws -> Void) {
        run {
            try await body()
            return nil
        }
    }

    private func run(_ body: @escaping @Sendable () async throws -> Any?) {
        Task {
            do {
                resolve(try await body())
            } catch {
                fail(error)
            }
        }
    }

    private func fail(_ error: any Error) {
        let refusal = RingerBridgeError(error)
        reject(refusal.code, refusal.message, refusal.nsError)
    }
}
