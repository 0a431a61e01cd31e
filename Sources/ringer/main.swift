// The `ringer` command line: the server and its operator commands. The laboratory (sandboxes, simulated phones,
// scenarios, demo, benchmark) is `ringer-lab`, a separate binary this one links none of.
import Foundation
import RingerCommandLine

// A write to a closed socket or pipe must fail with EPIPE, not kill the server.
signal(SIGPIPE, SIG_IGN)

let laboratory: Set<String> = ["sandbox", "demo", "scenario", "explore", "keys", "bench", "node"]
let code = await Subcommands.run(
    Array(CommandLine.arguments.dropFirst()), usage: Usage.text,
    commands: [
        "serve": { await ServeCommand.run($0) },
        "doctor": { await DoctorCommand.run($0, environment: ProcessInfo.processInfo.environment) },
        "copy-database": { CopyDatabaseCommand.run($0, environment: ProcessInfo.processInfo.environment) },
    ],
    elsewhere: { laboratory.contains($0) ? "\($0) is a laboratory command: run ringer-lab \($0)" : nil })
exit(code)
