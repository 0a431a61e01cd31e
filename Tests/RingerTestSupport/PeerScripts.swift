public import Foundation

/// The independent peers in Tests/Peers: Python scripts using libraries other than ours
/// (hypercorn/h2, websockets, PyJWT, aioapns, livekit-api, cryptography), so a test never only checks
/// Ringer against itself. The one place that knows where they live (found from `#filePath`).
public enum PeerScripts {
    /// Tests/Peers.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers")

    /// The full path of a peer script.
    /// - Parameter script: File name in Tests/Peers, e.g. `"h2_peer.py"`.
    /// - Returns: Its absolute path.
    public static func path(_ script: String) -> String { directory.appendingPathComponent(script).path }

    /// Runs `python3 Tests/Peers/<script> <arguments>` to completion in Tests/Peers.
    /// - Parameters:
    ///   - script: File name in Tests/Peers.
    ///   - arguments: Its command-line arguments.
    ///   - timeout: Seconds before it is terminated and the run fails.
    /// - Returns: Its outcome (exit status 0).
    /// - Throws: ``TestSupportError`` quoting its error output when it exits non-zero or runs too long.
    @discardableResult
    public static func run(
        _ script: String, _ arguments: [String], timeout: Double = 60
    ) async throws
        -> ChildProcess.Outcome
    {
        try await ChildProcess.check(["python3", path(script)] + arguments, in: directory, timeout: timeout)
    }
}
