/// A test's environment could not be set up (a missing tool, a port, a process); the message says how to fix it.
struct TestSetupError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
