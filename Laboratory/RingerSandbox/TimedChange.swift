public import Foundation

/// One change the simulated CallKit applied, and when: the entries of its history, which tests and the race
/// explorer read.
public struct TimedChange<Change: Sendable & Hashable>: Sendable, Hashable {
    /// When it was applied, on the UI's clock.
    public var at: Date
    /// What changed.
    public var change: Change

    /// Creates an entry (tests build histories by hand).
    public init(at: Date, change: Change) {
        self.at = at
        self.change = change
    }
}
