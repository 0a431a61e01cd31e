/// Polls `condition` every 20 ms until it holds or `seconds` pass, for state that other threads (server
/// callbacks, peers) change without telling the test.
/// - Parameters:
///   - seconds: How long to keep polling, in seconds.
///   - condition: Checked on the calling task; keep it cheap and non-blocking.
/// - Returns: true as soon as `condition` holds; its last value once the time is up.
/// - Throws: what `condition` throws.
public func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}
