import SocketSupport

/// Ports for the throw-away servers a fixture starts as child processes.
public enum FixturePort {
    /// A port on 127.0.0.1 that was free a moment ago, for a child process to listen on (another process may
    /// take it before the child binds it: callers that can, retry on another).
    /// - Returns: the port number.
    /// - Throws: ``TestSupportError`` when no socket can be bound.
    public static func free() throws -> Int {
        do {
            return try LoopbackPort.free()
        } catch {
            throw TestSupportError.setup("no free port on 127.0.0.1: \(error)")
        }
    }
}
