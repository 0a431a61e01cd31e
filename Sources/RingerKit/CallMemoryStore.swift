public import Foundation
import RingerSupport

/// Where ``PhoneCallMachine/Memory`` (the calls that ended, the answers the server has not confirmed) survives
/// the app's process, so a new process neither rings a call that is over nor forgets an answer the user gave.
/// Implementations must be thread-safe; ``CallCoordinator`` saves before it carries out what a change decided
/// (an answer is stored before its accept is sent).
public protocol CallMemoryStore: Sendable {
    /// The stored memory; empty when none is stored or it cannot be read.
    func load() -> PhoneCallMachine.Memory
    /// Replaces the stored memory.
    func save(_ memory: PhoneCallMachine.Memory)
}

/// Keeps the memory in this process only (tests, or an app that accepts losing it on relaunch).
public final class InMemoryCallMemoryStore: CallMemoryStore {
    private let memory: LockedValue<PhoneCallMachine.Memory>

    /// Creates a store holding `memory`.
    public init(_ memory: PhoneCallMachine.Memory = PhoneCallMachine.Memory()) { self.memory = LockedValue(memory) }
    public func load() -> PhoneCallMachine.Memory { memory.snapshot }
    public func save(_ memory: PhoneCallMachine.Memory) { self.memory.withLock { $0 = memory } }
}

/// Keeps the memory in a JSON file (e.g. in Application Support), written atomically on every change (a crash
/// mid-write leaves the previous version). A file that cannot be read counts as empty.
public final class FileCallMemoryStore: CallMemoryStore {
    private let url: URL
    private let lock = LockedValue(())

    /// Creates the store; the file is created on the first save.
    /// - Parameter url: the JSON file.
    public init(url: URL) { self.url = url }

    public func load() -> PhoneCallMachine.Memory {
        lock.withLock { _ in
            guard let data = try? Data(contentsOf: url) else { return PhoneCallMachine.Memory() }
            return (try? JSONDecoder().decode(PhoneCallMachine.Memory.self, from: data)) ?? PhoneCallMachine.Memory()
        }
    }

    public func save(_ memory: PhoneCallMachine.Memory) {
        lock.withLock { _ in
            guard let data = try? JSONEncoder().encode(memory) else { return }
            try? data.write(to: url, options: .atomic)
        }
    }
}
