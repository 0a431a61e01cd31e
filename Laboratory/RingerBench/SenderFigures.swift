public import RingerTestKit

/// One sender's measured run: its own report plus what the harness saw from outside (its process's CPU
/// time and peak RSS, and how busy the sandbox was meanwhile).
public struct SenderFigures: Hashable, Sendable {
    /// What the sender printed.
    public var report: SenderReport
    /// The sender process's CPU time and peak RSS (from `wait4`), start-up included.
    public var usage: ProcessUsage
    /// Wall-clock seconds from starting the sender process to its exit, as the harness measured them.
    public var processSeconds: Double
    /// CPU seconds the sandbox used over the same span; nil when `/proc` could not be read.
    public var sandboxCPUSeconds: Double?

    /// Creates the figures.
    /// - Parameters:
    ///   - report: the sender's own figures.
    ///   - usage: its process's CPU time and peak RSS.
    ///   - processSeconds: wall-clock seconds its process ran.
    ///   - sandboxCPUSeconds: sandbox CPU seconds over that span.
    public init(report: SenderReport, usage: ProcessUsage, processSeconds: Double, sandboxCPUSeconds: Double?) {
        self.report = report
        self.usage = usage
        self.processSeconds = processSeconds
        self.sandboxCPUSeconds = sandboxCPUSeconds
    }

    /// Accepted pushes per second, the headline figure.
    public var pushesPerSecond: Double { report.pushesPerSecond }

    /// Sender CPU time per push, microseconds (process start-up included).
    public var cpuMicrosecondsPerPush: Double {
        report.pushes > 0 ? usage.cpuSeconds / Double(report.pushes) * 1_000_000 : 0
    }

    /// Average cores the sender kept busy while its process ran.
    public var senderCores: Double { processSeconds > 0 ? usage.cpuSeconds / processSeconds : 0 }

    /// Average cores the sandbox kept busy meanwhile; nil when unknown.
    public var sandboxCores: Double? {
        guard let sandboxCPUSeconds, processSeconds > 0 else { return nil }
        return sandboxCPUSeconds / processSeconds
    }
}
