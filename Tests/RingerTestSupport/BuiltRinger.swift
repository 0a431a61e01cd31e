public import Foundation

/// The `ringer` binary that `swift build --build-tests` put beside the test bundle, for tests that start it as a
/// child process (`ringer serve` nodes, `ringer explore`).
public enum BuiltRinger {
    /// Its path.
    /// - Throws: ``TestSupportError`` when there is none (the build did not run).
    public static func url() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        guard let found = [directory, directory.deletingLastPathComponent()]
            .map({ $0.appendingPathComponent("ringer") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestSupportError.setup("no ringer binary near \(directory.path): run swift build --build-tests")
        }
        return found
    }
}
