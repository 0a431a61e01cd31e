public import Foundation
import RingerWire

/// One scenario file: who exists, which phones they hold and in what state, what happens when, and
/// what must have happened by the end. The format is documented in docs/scenarios.md; times are
/// scenario seconds (see ``ScenarioClock``).
///
/// ```swift
/// let scenario = try Scenario.load(path: "Scenarios/03_push_wakes_killed_app.json")
/// let result = await ScenarioRunner(timeScale: 0.01).run(scenario)
/// ```
/// Values are immutable and thread-safe.
public struct Scenario: Sendable {
    /// A user the server knows (the app's backend minted a token for them).
    public struct User: Sendable, Equatable {
        /// The user id.
        public var id: String
        /// The display name callees see, if any.
        public var name: String?
    }

    /// The path the scenario was loaded from, as given.
    public var file: String
    /// A short title.
    public var name: String
    /// What the scenario proves, in words.
    public var description: String?
    /// The server's `--ring-timeout`, scenario seconds.
    public var ringTimeout: TimeInterval
    /// The server's `--call-idle-timeout`, scenario seconds.
    public var callIdleTimeout: TimeInterval = 120
    /// The server's `--max-call-duration`, scenario seconds.
    public var maxCallDuration: TimeInterval = 14_400
    /// The fewest server nodes the scenario needs (`"nodes"`, 1 by default): more than 1 runs only against a
    /// cluster (`ringer-lab scenario --nodes`), whose node `0..<nodes` its `kill_node` steps and devices' `node` name.
    public var nodes: Int = 1
    /// When the time line stops and the outcome is compared, scenario seconds after the start.
    public var runUntil: TimeInterval
    /// The users, in file order.
    public var users: [User]
    /// The phones, in file order.
    public var devices: [ScenarioDevice]
    /// The actions, in time order.
    public var timeline: [ScenarioAction]
    /// The expected outcome.
    public var expect: ScenarioExpectation

    /// Reads and validates a scenario file.
    /// - Parameter path: the file's path.
    /// - Returns: the scenario.
    /// - Throws: ``ScenarioFileError`` naming the file and the JSON path of the first problem.
    public static func load(path: String) throws -> Scenario {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ScenarioFileError.unreadable(path, reason: (error as NSError).localizedDescription)
        }
        return try parse(data, file: path)
    }

    /// Validates a scenario given as JSON.
    /// - Parameters:
    ///   - data: the file's contents (UTF-8 JSON).
    ///   - file: the name used in error messages.
    /// - Returns: the scenario.
    /// - Throws: ``ScenarioFileError``.
    public static func parse(_ data: Data, file: String) throws -> Scenario {
        try ScenarioParser(file: file).scenario(from: ScenarioJSON.parse(data, file: file))
    }

    /// The scenario files named by `paths`: files as given, folders expanded to their `*.json` files in
    /// name order.
    /// - Parameter paths: files and folders.
    /// - Returns: file paths.
    /// - Throws: ``ScenarioFileError/unreadable(_:reason:)`` for a path that does not exist or a folder
    ///   without scenario files.
    public static func files(in paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ScenarioFileError.unreadable(path, reason: "no such file or folder")
            }
            guard isFolder.boolValue else {
                files.append(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ScenarioFileError.unreadable(path, reason: (error as NSError).localizedDescription)
            }
            let found = names.filter { $0.hasSuffix(".json") }.sorted()
            guard !found.isEmpty else {
                throw ScenarioFileError.unreadable(path, reason: "the folder has no .json files")
            }
            files += found.map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
        }
        return files
    }

    /// True when a device of the scenario is an Android phone: its run needs the Android phone host
    /// (``AndroidPhoneHost``, built by `make -C android lab`).
    public var hasAndroidPhones: Bool { devices.contains { $0.platform == .android } }

    /// The labels of the calls the time line places, in order.
    public var callLabels: [String] {
        timeline.compactMap { action in
            switch action.kind {
            case .call(_, let label, _), .groupCall(_, _, let label), .callBack(let label): return label
            default: return nil
            }
        }
    }
}
