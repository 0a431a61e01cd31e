import Foundation
import RingerSupport
import RingerScenarios

/// `ringer-lab demo [--android] [--json]`: exits 0 only when the whole flow happened.
enum DemoCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let json = arguments.contains("--json")
        let verbose = arguments.contains("--verbose")
        let logger = verbose ? Logger(label: "ringer.demo", level: .info) : Logger.silent()
        let android = arguments.contains("--android")
        let ok = await Demo.run(json: json, android: android, logger: logger) { line in
            try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
        }
        return ok ? 0 : 1
    }
}
