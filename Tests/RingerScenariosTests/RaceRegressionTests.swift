import Foundation
import RingerScenarios
import Testing

extension ScenarioRuns {
    /// The situations in which the race explorer found bugs, pinned as hand-written scripts so they run in
    /// every `make test` whatever the generator makes of their seeds later. Each is a race: it shows the
    /// bug only when the interleaving lines up (most runs did), so these guard the scenario end to end,
    /// while `Tests/RingerKitTests/LostRaceTests` pins each fix deterministically.
    @Suite struct RaceRegressionTests {
        static func device(_ id: String, _ start: RaceScript.Start, push delay: TimeInterval = 0) -> RaceScript.Device {
            RaceScript.Device(id: id, start: start, pushDelay: delay)
        }

        static func step(_ at: TimeInterval, _ device: String?, _ action: RaceStep.Action) -> RaceStep {
            RaceStep(at: at, device: device, action: action)
        }

        static func script(_ devices: [RaceScript.Device], _ steps: [RaceStep]) -> RaceScript {
            RaceScript(
                seed: 0, ringTimeout: RaceScript.explorationRingTimeout, devices: devices, steps: steps,
                finalHangUpAt: 14)
        }

        static let scripts: [String: RaceScript] = [
            // bob-3 is switched on just before: woken by the held push, it rings with no socket yet (a woken
            // app needs 50 ms, 1.25 scenario seconds) and its background pushes are slow, so it has not heard of the answer.
            "a decline on one phone just after the answer on another does not hang up the answered call": script(
                [device("bob-1", .foreground), device("bob-2", .foreground), device("bob-3", .off, push: 2)],
                [step(5.5, "bob-3", .phoneOn), step(5.6, "bob-2", .answer), step(6.2, "bob-3", .decline)]),
            "an answer that loses to another device's ends answered_elsewhere, not as a failed answer": script(
                [device("bob-1", .killed), device("bob-2", .background), device("bob-3", .off, push: 2)],
                [step(5.5, "bob-3", .phoneOn), step(5.6, "bob-1", .answer), step(6.2, "bob-3", .answer)]),
            "an answer that loses to a decline elsewhere ends declined_elsewhere": script(
                [device("bob-1", .foreground), device("bob-2", .background)],
                [step(0.85, "bob-2", .decline), step(0.9, "bob-1", .answer), step(10.65, "bob-2", .answer)]),
            "a slow push after the call rang out ends unanswered": script(
                [device("bob-1", .background), device("bob-2", .foreground, push: 8.55), device("bob-3", .foreground)],
                [step(1.55, "bob-1", .phoneOff)]),
            "a slow push after another device answered and hung up ends answered_elsewhere": script(
                [device("bob-1", .foreground), device("bob-2", .killed, push: 5)],
                [step(1, "bob-1", .answer), step(2.5, "bob-1", .hangUp)]),
            "an answered call that ended before the woken app's socket came up closes": script(
                [device("bob-1", .killed)],
                [step(0.7, "bob-1", .answer), step(1.2, nil, .callerHangsUp)]),
            "a phone whose socket came up after the answer elsewhere ends answered_elsewhere on call.ended": script(
                [
                    device("bob-1", .background, push: 2.65), device("bob-2", .off),
                    device("bob-3", .background, push: 3.65),
                ],
                [
                    step(2.75, "bob-2", .phoneOn), step(4.7, "bob-2", .answer), step(7.85, "bob-1", .phoneOff),
                    step(8.2, "bob-2", .hangUp),
                ]),
        ]

        @Test(arguments: scripts.keys.sorted())
        func foundRaceKeepsTheRingingInvariants(_ name: String) async throws {
            let script = try #require(Self.scripts[name])
            let first = await RaceExplorer().run(script)
            guard !first.passed else { return }
            let again = await RaceExplorer().run(script)
            if again.passed {
                print("note: \(name): broke an invariant once, kept them when played again:\n\(first.report)")
            } else {
                Issue.record("\(name)\n\(first.report)\n\nplayed again:\n\(again.report)")
            }
        }
    }
}
