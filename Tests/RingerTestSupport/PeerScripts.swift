public import Foundation

/// The independent peers in Tests/Peers: Python scripts using libraries other than ours
/// (hypercorn/h2, websockets, PyJWT, aioapns, livekit-api), so a test never only checks Ringer
/// against itself.
public enum PeerScripts {
    /// Tests/Peers.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers")

    /// The full path of a peer script.
    public static func path(_ script: String) -> String { directory.appendingPathComponent(script).path }

    /// Runs `python3 Tests/Peers/<script> <arguments>` to completion.
    /// - Throws: ``ChildProcess/Failure`` with its error output when it exits non-zero.
    public static func run(_ script: String, _ arguments: [String]) async throws {
        try await ChildProcess.run(["python3", path(script)] + arguments, in: directory)
    }
}
