// The `ringer-lab` command line: the laboratory around the server (sandboxes, simulated phones, scenarios, the race
// explorer, the demo, the benchmark) and `node`, the server on a test clock. `ringer` is the product.
import Foundation
import RingerLogging

// A write to a closed socket or pipe must fail with EPIPE, not kill the process (or `ringer-lab demo | head`).
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "help"
let rest = Array(arguments.dropFirst())
let code: Int32
// `ringer-lab <command> --help` prints the usage too, instead of failing on an unknown flag.
let wantsHelp = rest.contains("--help") || rest.contains("-h")
switch wantsHelp ? "help" : command {
case "node": code = await NodeCommand.run(rest)
case "sandbox": code = await SandboxCommand.run(rest)
case "demo": code = await DemoCommand.run(rest)
case "scenario": code = await ScenarioCommand.run(rest)
case "explore": code = await ExploreCommand.run(rest)
case "keys": code = KeysCommand.run(rest)
case "bench": code = await BenchCommand.run(rest)
case "help", "--help", "-h":
    print(LabUsage.text)
    code = 0
default:
    try? FileHandle.standardError.write(contentsOf: Data("unknown command \(command)\n\n\(LabUsage.text)\n".utf8))
    code = 2
}
exit(code)
