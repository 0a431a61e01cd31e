// The `ringer` command line: the server and its operator commands. The laboratory (sandboxes, simulated phones,
// scenarios, demo, benchmark) is `ringer-lab`, a separate binary this one links none of.
import Foundation
import RingerCommandLine

// A write to a closed socket or pipe must fail with EPIPE, not kill the server.
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "help"
let rest = Array(arguments.dropFirst())
let code: Int32
// `ringer <command> --help` prints the usage too, instead of failing on an unknown flag.
let wantsHelp = rest.contains("--help") || rest.contains("-h")
switch wantsHelp ? "help" : command {
case "serve": code = await ServeCommand.run(rest)
case "copy-database": code = CopyDatabaseCommand.run(rest, environment: ProcessInfo.processInfo.environment)
case "help", "--help", "-h":
    print(Usage.text)
    code = 0
case "sandbox", "demo", "scenario", "explore", "keys", "bench":
    try? FileHandle.standardError.write(
        contentsOf: Data("\(command) is a laboratory command: run ringer-lab \(command)\n".utf8))
    code = 2
default:
    try? FileHandle.standardError.write(contentsOf: Data("unknown command \(command)\n\n\(Usage.text)\n".utf8))
    code = 2
}
exit(code)
