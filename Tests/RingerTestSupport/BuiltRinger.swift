public import Foundation

/// The binaries that `swift build --build-tests` put beside the test bundle, for tests that start them as child
/// processes: the product `ringer` (`serve`) and the laboratory `ringer-lab` (`sandbox`, `scenario`, `explore`, `node`).
public enum BuiltRinger {
    /// The product's `ringer` binary.
    /// - Throws: ``TestSupportError`` when there is none (the build did not run).
    public static func url() throws -> URL { try built("ringer") }

    /// The laboratory's `ringer-lab` binary (sandbox, scenario, explore, demo, bench, `node`), built beside it.
    /// - Throws: ``TestSupportError`` when there is none (the build did not run).
    public static func lab() throws -> URL { try built("ringer-lab") }

    private static func built(_ name: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        guard
            let found = [directory, directory.deletingLastPathComponent()]
                .map({ $0.appendingPathComponent(name) })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else {
            throw TestSupportError.setup("no \(name) binary near \(directory.path): run swift build --build-tests")
        }
        return found
    }
}
