public import Foundation

/// The one dispatcher of `ringer` and `ringer-lab`: the first argument names the command, the rest are its
/// arguments, `help`, `--help` and `-h` (also after any command) print the usage.
public enum Subcommands {
    /// A command: its arguments in, its exit status out.
    public typealias Command = @Sendable ([String]) async -> Int32

    /// Runs the command `arguments` names.
    /// - Parameters:
    ///   - arguments: the process's arguments after the program name (`CommandLine.arguments.dropFirst()`).
    ///   - usage: the help text.
    ///   - commands: each command by name.
    ///   - elsewhere: for a name that is no command here, a line saying where it is instead (the other binary), or
    ///     nil to print "unknown command" and the usage.
    /// - Returns: the exit status: the command's; 0 for help; 2 for an unknown command.
    public static func run(
        _ arguments: [String], usage: String, commands: [String: Command],
        elsewhere: (String) -> String? = { _ in nil }
    ) async -> Int32 {
        let command = arguments.first ?? "help"
        let rest = Array(arguments.dropFirst())
        // `<command> --help` prints the usage too, instead of failing on an unknown flag.
        if ["help", "--help", "-h"].contains(command) || rest.contains("--help") || rest.contains("-h") {
            print(usage)
            return 0
        }
        if let run = commands[command] { return await run(rest) }
        let message = elsewhere(command).map { $0 + "\n" } ?? "unknown command \(command)\n\n\(usage)\n"
        try? FileHandle.standardError.write(contentsOf: Data(message.utf8))
        return 2
    }
}
