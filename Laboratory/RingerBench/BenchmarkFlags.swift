/// How the parts' options read their flags (`--name value`, already split into a dictionary by the command line).
enum BenchmarkFlags {
    /// The whole number `flags[name]`, or `value` when the flag is not given.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the flag when it is no whole number in `range`.
    static func whole(_ flags: [String: String], _ name: String, _ value: Int, _ range: ClosedRange<Int>) throws -> Int
    {
        guard let text = flags[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw BenchmarkError.invalidArgument(
                "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// The seconds of a step, `flags[name]`, from 0.5 to 600, or `value` when the flag is not given.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the flag when it is not such a number.
    static func stepSeconds(_ flags: [String: String], _ name: String, _ value: Double) throws -> Double {
        guard let text = flags[name] else { return value }
        guard let seconds = Double(text), seconds >= 0.5, seconds <= 600 else {
            throw BenchmarkError.invalidArgument("--\(name) must be seconds in 0.5...600")
        }
        return seconds
    }
}
