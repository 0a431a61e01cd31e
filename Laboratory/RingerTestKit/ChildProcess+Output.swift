public import Foundation

extension ChildProcess {
    /// Waits until the text of `file` (the child's stdout or stderr) gives a value, polling every 20 ms.
    /// - Parameters:
    ///   - file: the file the child writes to.
    ///   - limit: longest wait.
    ///   - what: what is awaited, for the error (e.g. "listen").
    ///   - find: reads the value out of the file's whole text; nil while it is not there yet.
    /// - Returns: the value.
    /// - Throws: ``TestSupportError`` when the child exits first (`<program> exited with status N before
    ///   <what>: <stderr>`) or `limit` passes (`<program> did not <what> within <limit>: <stderr>`).
    public func awaitOutput<T>(
        in file: URL, within limit: Duration, what: String,
        _ find: (String) -> T?
    ) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if let value = find(text) { return value }
            if let exit = exitIfEnded {
                throw TestSupportError.notReady(
                    program, "exited with status \(exit.status) before \(what)", standardError: standardErrorTail())
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError.notReady(program, "did not \(what) within \(limit)", standardError: standardErrorTail())
    }
}
