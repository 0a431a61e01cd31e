import Foundation
import Synchronization

/// Counters and histograms kept in memory and written in the Prometheus text exposition format 0.0.4 (`# HELP`,
/// `# TYPE`, samples; a histogram as cumulative `_bucket{le=…}` series ending at `+Inf`, then `_sum` and `_count`).
/// Each update takes one short lock; reading renders a snapshot. Families and their label names are declared once, so
/// every series of a family has the same labels (Prometheus' data model).
final class MetricsRegistry: Sendable {
    /// A family: its name, help, kind, and label names.
    struct Family: Sendable, Hashable {
        enum Kind: String, Sendable { case counter, gauge, histogram }
        let name: String
        let help: String
        let kind: Kind
        let labels: [String]
        /// Upper bounds of a histogram's buckets, ascending, without `+Inf`.
        let buckets: [Double]

        static func counter(_ name: String, _ help: String, labels: [String] = []) -> Family {
            Family(name: name, help: help, kind: .counter, labels: labels, buckets: [])
        }

        static func gauge(_ name: String, _ help: String, labels: [String] = []) -> Family {
            Family(name: name, help: help, kind: .gauge, labels: labels, buckets: [])
        }

        static func histogram(_ name: String, _ help: String, buckets: [Double], labels: [String] = []) -> Family {
            Family(name: name, help: help, kind: .histogram, labels: labels, buckets: buckets)
        }
    }

    private struct Histogram: Sendable {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        /// One observation, in its bucket (nil: above every bound, counted in `+Inf` alone).
        mutating func record(_ value: Double, bucket: Int?) {
            if let bucket { counts[bucket] += 1 }
            sum += value
            count += 1
        }
    }

    private struct State: Sendable {
        var values: [String: [[String]: Double]] = [:]
        var histograms: [String: [[String]: Histogram]] = [:]
    }

    private let families: [Family]
    private let state = Mutex(State())

    /// - Parameter families: every family the registry serves, in the order they are written.
    init(families: [Family]) {
        self.families = families
    }

    /// Adds `amount` to a counter (or gauge) series.
    func add(_ family: Family, _ labels: [String] = [], _ amount: Double = 1) {
        state.withLock { $0.values[family.name, default: [:]][labels, default: 0] += amount }
    }

    /// Sets a gauge series.
    func set(_ family: Family, _ labels: [String] = [], _ value: Double) {
        state.withLock { $0.values[family.name, default: [:]][labels] = value }
    }

    /// Removes a gauge series: it is left out until set again.
    func remove(_ family: Family, _ labels: [String] = []) {
        state.withLock { _ = $0.values[family.name, default: [:]].removeValue(forKey: labels) }
    }

    /// Records one observation in a histogram series.
    func observe(_ family: Family, _ labels: [String] = [], _ value: Double) {
        let bucket = family.buckets.firstIndex(where: { value <= $0 })
        state.withLock { state in
            // Changed where it is stored: a copy taken out and put back would copy its counts array at every
            // observation (one a store operation), a heap allocation on the hottest path, whose churn kept glibc from
            // giving freed memory back (IdleSocketMemoryTests).
            state.histograms[family.name, default: [:]][
                labels, default: Histogram(counts: Array(repeating: 0, count: family.buckets.count))
            ].record(value, bucket: bucket)
        }
    }

    /// The text exposition of every family, series sorted by labels so two scrapes list them alike.
    func render() -> String {
        let snapshot = state.withLock { $0 }
        var text = ""
        for family in families {
            text +=
                "# HELP \(family.name) \(Self.escapeHelp(family.help))\n# TYPE \(family.name) \(family.kind.rawValue)\n"
            switch family.kind {
            case .counter, .gauge:
                let series = snapshot.values[family.name] ?? [:]
                // A counter without labels always has its one series, 0 until it moves; a gauge only once set.
                let rows = family.kind == .counter && family.labels.isEmpty && series.isEmpty ? [[]: 0] : series
                for (labels, value) in rows.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    text += "\(family.name)\(Self.labelText(family.labels, labels)) \(Self.number(value))\n"
                }
            case .histogram:
                let series = snapshot.histograms[family.name] ?? [:]
                let rows =
                    family.labels.isEmpty && series.isEmpty
                    ? [[]: Histogram(counts: Array(repeating: 0, count: family.buckets.count))] : series
                for (labels, histogram) in rows.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    var cumulative: UInt64 = 0
                    for (bound, count) in zip(family.buckets, histogram.counts) {
                        cumulative += count
                        let names = family.labels + ["le"]
                        text +=
                            "\(family.name)_bucket\(Self.labelText(names, labels + [Self.number(bound)])) \(cumulative)\n"
                    }
                    text +=
                        "\(family.name)_bucket\(Self.labelText(family.labels + ["le"], labels + ["+Inf"])) \(histogram.count)\n"
                    text += "\(family.name)_sum\(Self.labelText(family.labels, labels)) \(Self.number(histogram.sum))\n"
                    text += "\(family.name)_count\(Self.labelText(family.labels, labels)) \(histogram.count)\n"
                }
            }
        }
        return text
    }

    /// `{a="1",b="2"}`, or nothing without labels; values escaped as the format says (`\\`, `\"`, `\n`).
    private static func labelText(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\""
            )
            .replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// HELP text escapes `\` and line feeds.
    private static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value: whole numbers without a fraction, others as Swift prints a Double (Go's `ParseFloat` reads both).
    private static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
