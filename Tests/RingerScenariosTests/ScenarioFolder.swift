import Foundation
import RingerScenarios
import RingerWire

/// The package's `Scenarios/` folder, found from this file's path, and the scenario files in it.
enum ScenarioFolder {
    /// `<package>/Scenarios`.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios").path

    /// Every `*.json` file in the folder, in name order (empty if the folder is missing: the tests then fail).
    static var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { path + "/" + $0 }
    }

    /// Every `*.json` file in a subfolder (`cluster`), in name order.
    static func files(in subfolder: String) -> [String] {
        let folder = path + "/" + subfolder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { folder + "/" + $0 }
    }

    /// The path of one scenario file.
    static func file(_ name: String) -> String { path + "/" + name }

    /// The files of ``files`` with an Android phone among their devices, which run in the phone host (a file that
    /// does not load is left out: ``ScenarioRuns/ScenarioFilesTests`` reports it).
    static var androidFiles: [String] {
        files.filter { file in (try? Scenario.load(path: file))?.hasAndroidPhones ?? false }
    }

    /// The files of ``androidFiles`` with an Android phone on the SDK's default call UI (the `ConnectionService`).
    static var connectionServiceAndroidFiles: [String] {
        androidFiles.filter { file in
            (try? Scenario.load(path: file))?.devices.contains {
                $0.platform == .android && $0.callUI == .connectionService
            }
                ?? false
        }
    }

    /// The files of ``files`` without an Android phone, and those that do not load (so their suite reports them).
    static var iPhoneFiles: [String] {
        files.filter { file in !((try? Scenario.load(path: file))?.hasAndroidPhones ?? false) }
    }
}
