public import Foundation

/// What a simulated phone's user does when it rings, the same on an iPhone and an Android phone.
public enum CalleeBehaviour: Sendable, Equatable {
    /// Answer from the native call screen this many seconds after it starts ringing.
    case answer(after: TimeInterval)
    /// Decline this many seconds after it starts ringing.
    case decline(after: TimeInterval)
    /// Let it ring.
    case ignore

    /// The same behaviour with its delay converted (a scenario's seconds to real ones, say).
    /// - Parameter convert: maps a delay in seconds.
    /// - Returns: the converted behaviour.
    public func mapDelay(_ convert: (TimeInterval) -> TimeInterval) -> CalleeBehaviour {
        switch self {
        case .answer(let after): .answer(after: convert(after))
        case .decline(let after): .decline(after: convert(after))
        case .ignore: .ignore
        }
    }
}
