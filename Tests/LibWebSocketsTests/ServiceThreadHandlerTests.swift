import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Handlers on the service thread (`handlesRequestsOnServiceThread`, issue 33): every piece of a handler runs on
/// that one thread, whatever thread resumed it, every request of a burst is answered, and a handler still suspended
/// when the server stops is not left without a thread.
@Suite struct ServiceThreadHandlerTests {
    /// A configuration whose handlers run on the service thread.
    static func configuration() -> WebServer.Configuration {
        var configuration = WebServer.Configuration()
        configuration.handlesRequestsOnServiceThread = true
        return configuration
    }

    /// The calling thread, as a number.
    static func thread() -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: pthread_self()))) }

    /// Suspends until another thread (Dispatch's) resumes it.
    static func resumedElsewhere() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { continuation.resume() }
        }
    }

    @Test func everyPieceOfEveryHandlerOfABurstRunsOnOneThreadAndEveryRequestIsAnswered() async throws {
        let threads = LockedValue<Set<UInt>>([])
        let server = WebServer(configuration: Self.configuration()) { request in
            threads.withLock { _ = $0.insert(Self.thread()) }
            await Self.resumedElsewhere()
            threads.withLock { _ = $0.insert(Self.thread()) }
            await Self.resumedElsewhere()
            threads.withLock { _ = $0.insert(Self.thread()) }
            return .json(#"{"path":"\#(request.path)"}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let urls = (0..<40).map { "http://127.0.0.1:\(port)/v1/\($0)" }
        let result = try await ChildProcess.run(
            ["curl", "-sS", "--parallel", "--parallel-max", "20", "-w", "\n%{http_code}\n"] + urls)
        #expect(result.status == 0)
        #expect(result.standardOutput.components(separatedBy: "\n").filter { $0 == "200" }.count == 40)
        for index in 0..<40 { #expect(result.standardOutput.contains(#"{"path":"/v1/\#(index)"}"#)) }
        #expect(threads.withLock { $0.count } == 1)
        #expect(threads.withLock { !$0.contains(Self.thread()) })
    }

    @Test func aHandlerStillSuspendedWhenTheServerStopsFinishesOnAnotherThread() async throws {
        let started = LockedValue(false)
        let finished = LockedValue(false)
        let waiting = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        let server = WebServer(configuration: Self.configuration()) { _ in
            await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                started.withLock { $0 = true }
            }
            finished.withLock { $0 = true }
            return .json("{}")
        }
        let port = try server.start()
        let client = Task { try await ChildProcess.run(["curl", "-sS", "-m", "10", "http://127.0.0.1:\(port)/v1/x"]) }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while !started.withLock({ $0 }), clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(started.withLock { $0 })
        server.shutdown()
        // The service thread is gone: the handler's next job must run somewhere else.
        waiting.withLock { $0 }?.resume()
        while !finished.withLock({ $0 }), clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(finished.withLock { $0 })
        _ = try? await client.value
    }
}
