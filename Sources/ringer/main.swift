// The `ringer` command line: serve, sandbox, demo, scenario, explore, keys, bench, copy-database.
import Foundation
import RingerLogging

// A write to a closed socket or pipe must fail with EPIPE, not kill the server (or `ringer demo | head`).
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "help"
let rest = Array(arguments.dropFirst())
let code: Int32
// `ringer <command> --help` prints the usage too, instead of failing on an unknown flag.
let wantsHelp = rest.contains("--help") || rest.contains("-h")
switch wantsHelp ? "help" : command {
case "serve": code = await ServeCommand.run(rest)
case "sandbox": code = await SandboxCommand.run(rest)
case "demo": code = await DemoCommand.run(rest)
case "scenario": code = await ScenarioCommand.run(rest)
case "explore": code = await ExploreCommand.run(rest)
case "keys": code = KeysCommand.run(rest)
case "bench": code = await BenchCommand.run(rest)
case "copy-database": code = CopyDatabaseCommand.run(rest, environment: ProcessInfo.processInfo.environment)
case "help", "--help", "-h":
    print(Usage.text)
    code = 0
default:
    try? FileHandle.standardError.write(contentsOf: Data("unknown command \(command)\n\n\(Usage.text)\n".utf8))
    code = 2
}
exit(code)
