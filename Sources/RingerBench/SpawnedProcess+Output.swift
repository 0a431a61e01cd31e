import Foundation

extension SpawnedProcess {
    /// Waits until the text of `file` (the child's stdout or stderr) gives a value, polling every 20 ms.
    /// - Parameters:
    ///   - file: the file the child writes to.
    ///   - limit: longest wait.
    ///   - what: what is awaited, for the error (e.g. "to listen").
    ///   - find: reads the value out of the file's whole text; nil while it is not there yet.
    /// - Returns: the value.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` when the child exits first or `limit` passes.
    func awaitOutput<T>(
        in file: URL, within limit: Duration, what: String,
        _ find: (String) -> T?
    ) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if let value = find(text) { return value }
            if let exit = exitIfEnded {
                throw BenchmarkError.sender(
                    program, "exited with status \(exit.status) before \(what): \(standardErrorTail())")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkError.sender(program, "did not \(what) within \(limit): \(standardErrorTail())")
    }
}
