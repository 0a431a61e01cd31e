/// Why a ``LocalStack`` could not be built or changed: a node that would not start, a setting a cluster stack cannot
/// use. The message names the node and quotes the end of its log; never a secret.
public struct LocalStackError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
