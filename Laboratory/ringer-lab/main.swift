// The `ringer-lab` command line: the laboratory around the server (sandboxes, simulated phones, scenarios, the race
// explorer, the demo, the benchmark) and `node`, the server on a test clock. `ringer` is the product.
import Foundation
import RingerCommandLine

// A write to a closed socket or pipe must fail with EPIPE, not kill the process (or `ringer-lab demo | head`).
signal(SIGPIPE, SIG_IGN)

let code = await Subcommands.run(
    Array(CommandLine.arguments.dropFirst()), usage: LabUsage.text,
    commands: [
        "node": { await NodeCommand.run($0) },
        "sandbox": { await SandboxCommand.run($0) },
        "demo": { await DemoCommand.run($0) },
        "scenario": { await ScenarioCommand.run($0) },
        "explore": { await ExploreCommand.run($0) },
        "keys": { KeysCommand.run($0) },
        "bench": { await BenchCommand.run($0) },
        // docs/configuration.md, generated from `ringer serve`'s flag table.
        "config-reference": { _ in
            print(ServeFlag.markdownReference, terminator: "")
            return 0
        },
    ],
    elsewhere: { ["serve", "copy-database"].contains($0) ? "\($0) is the server's command: run ringer \($0)" : nil })
exit(code)
