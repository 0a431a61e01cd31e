import RingerWire

extension Device {
    /// The problems of the device's last readiness report, nil when it reported none (or never reported): what a
    /// push outcome records so the callee's log says why an accepted push may still not have rung.
    var readinessProblems: [ReadinessProblem]? {
        guard let problems = readiness?.problems, !problems.isEmpty else { return nil }
        return problems
    }
}
