import Foundation
import RingerKit
import Testing

/// Runs the language-neutral vectors of the audio route (TestVectors/audio-route/*.json, format in
/// docs/test-vectors.md) against ``AudioRouteMachine``; the Android SDK runs the same files.
@Suite struct AudioRouteVectorTests {
    typealias V = PhoneCallVectorTests

    static let folder = V.folder.deletingLastPathComponent().appendingPathComponent("audio-route")

    static var files: [String] { V.jsonFiles(in: folder) }

    @Test func thereAreVectors() {
        #expect(Self.files.count >= 6, "\(Self.folder.path)")
    }

    @Test(arguments: files)
    func vectorHolds(_ file: String) throws {
        let vector = try V.vector(file, in: Self.folder)
        try V.only(
            ["description", "steps", "final"], in: vector, "the file", required: ["description", "steps", "final"])
        var machine = AudioRouteMachine()
        for (index, raw) in try V.array(vector["steps"], "steps").enumerated() {
            let what = "steps[\(index)]"
            let step = try V.object(raw, what)
            try V.only(["input", "effects"], in: step, what, required: ["input", "effects"])
            let effects = machine.handle(try Self.input(try V.object(step["input"], "\(what).input"), what))
            let expected = try V.array(step["effects"], "\(what).effects").map(V.canonical)
            #expect(effects.map(Self.json) == expected, "\(file) \(what)")
        }
        let final = try V.object(vector["final"], "final")
        try V.only(
            ["current", "chosen", "audio_active"], in: final, "final", required: ["current", "chosen", "audio_active"])
        #expect(machine.routes.current?.id == final["current"] as? String, "\(file): current")
        #expect(machine.chosen == final["chosen"] as? String, "\(file): chosen")
        #expect(machine.audioActive == (try V.bool(final["audio_active"], "final.audio_active")), "\(file): active")
    }

    static func input(_ input: [String: Any], _ what: String) throws -> AudioRouteInput {
        let type = try V.string(input["type"], "\(what).input.type")
        let keys: [String: Set<String>] = [
            "outputs_changed": ["current", "outputs"], "select": ["output_id"], "audio_activated": ["video"],
            "audio_deactivated": ["calls_left"],
        ]
        guard let known = keys[type] else { throw V.VectorError(description: "\(what): unknown input type \(type)") }
        try V.only(known.union(["type"]), in: input, "\(what).input", required: known.union(["type"]))
        switch type {
        case "outputs_changed":
            let outputs = try V.array(input["outputs"], "\(what).outputs").map { raw in
                let output = try V.object(raw, "\(what).outputs[]")
                try V.only(
                    ["id", "route", "name"], in: output, "\(what).outputs[]", required: ["id", "route", "name"])
                let route = try V.string(output["route"], "route")
                guard let kind = AudioRoute(rawValue: route) else {
                    throw V.VectorError(description: "\(what): unknown route \(route)")
                }
                return AudioOutput(
                    id: try V.string(output["id"], "id"), route: kind, name: try V.string(output["name"], "name"))
            }
            let current = input["current"] is NSNull ? nil : try V.string(input["current"], "\(what).current")
            return .outputsChanged(current: current, outputs: outputs)
        case "select": return .select(outputID: try V.string(input["output_id"], "\(what).output_id"))
        case "audio_activated": return .audioActivated(video: try V.bool(input["video"], "\(what).video"))
        default: return .audioDeactivated(callsLeft: try V.bool(input["calls_left"], "\(what).calls_left"))
        }
    }

    static func json(_ effect: AudioRouteEffect) -> String {
        switch effect {
        case .apply(let output): V.canonical(["type": "apply", "output_id": output.id])
        case .release: V.canonical(["type": "release"])
        case .routeChanged(let routes):
            V.canonical([
                "type": "route_changed", "current": (routes.current?.id).map { $0 as Any } ?? NSNull(),
                "outputs": routes.outputs.map(\.id),
            ])
        }
    }
}
