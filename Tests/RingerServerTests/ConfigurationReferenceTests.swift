import Foundation
import Testing

@testable import RingerCommandLine
@testable import RingerServer

/// `ringer serve`'s flags are declared once, in `ServeFlag.all` (issue 28): the parser, the usage and
/// docs/configuration.md all come from it.
@Suite struct ConfigurationReferenceTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func docsConfigurationIsTheReferenceTheFlagTableWrites() throws {
        let file = try String(
            contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        #expect(
            file == ServeFlag.markdownReference,
            "docs/configuration.md differs from the flag table: run `.build/debug/ringer-lab config-reference > docs/configuration.md`"
        )
    }

    @Test func everyFlagOfTheTableIsKnownToTheParserAndNamedOnce() {
        let names = ServeFlag.all.map(\.name)
        #expect(names.count == Set(names).count, "a flag is declared twice")
        #expect(Set(names) == ServerConfiguration.flagNames)
        for flag in ServeFlag.all {
            #expect(ServeFlag.usage.contains(flag.flag + " "), "\(flag.flag) is missing from the usage")
            #expect(ServeFlag.markdownReference.contains("`\(flag.environmentVariable)`"))
        }
    }

    /// A numeric flag is held to the table's range at both ends, and the refusal says the range in the table's
    /// words, so the reference, the usage and the error agree.
    @Test func aNumberOutsideTheTablesRangeIsRefusedInTheTablesWords() throws {
        let required = ["--admin-key", "a", "--user-token-secret", String(repeating: "s", count: 32)]
        for flag in ServeFlag.all {
            let (low, high): (String, String)
            switch flag.value {
            case .text, .secret: continue
            case .seconds(let range, let lowerExcluded):
                low = lowerExcluded ? ServeFlag.number(range.lowerBound) : ServeFlag.number(range.lowerBound - 0.05)
                high = ServeFlag.number(range.upperBound + 1)
            case .wholeSeconds(let range), .count(let range, _, _):
                (low, high) = ("\(range.lowerBound - 1)", "\(range.upperBound + 1)")
            }
            for text in [low, high, "x"] {
                let error = #expect(throws: ConfigurationError.self) {
                    _ = try ServerConfiguration.parse(arguments: required + [flag.flag, text], environment: [:])
                }
                #expect(error?.description == "\(flag.flag) must be \(flag.takes), got \(text)")
            }
            if let value = flag.defaultValue, Double(value) != nil {
                _ = try ServerConfiguration.parse(arguments: required + [flag.flag, value], environment: [:])
            }
        }
    }

    @Test func theRequiredFlagsAreTheOnesTheServerCannotStartWithout() {
        #expect(Set(ServeFlag.all.filter(\.isRequired).map(\.name)) == ["admin-key", "user-token-secret"])
        #expect(throws: ConfigurationError.self) { _ = try ServerConfiguration.parse(arguments: [], environment: [:]) }
    }
}
