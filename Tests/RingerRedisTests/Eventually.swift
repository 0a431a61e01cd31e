/// Polls `condition` every 10 ms until it holds or `seconds` pass, for state other threads change.
/// - Returns: true as soon as `condition` holds; its last value once the time is up.
func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}
