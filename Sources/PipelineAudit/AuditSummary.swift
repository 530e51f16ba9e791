/// The audit report as a person at a terminal reads it (`intentctl audit` without
/// `--json`): what was found in a few lines, every finding on its own, and whether the
/// records' signatures were checked at all. Scripts read the JSON report instead.
public enum AuditSummary {
    public static func lines(of report: PipelineAudit.Report, topicPrefix: String) -> [String] {
        var lines: [String] = []
        let scope = topicPrefix.isEmpty ? "the pipeline's topics" : "the topics under \(topicPrefix)"
        let period = report.window.map { " from \($0.from)\($0.to.map { " to \($0)" } ?? "")" } ?? ""
        lines.append(
            report.findings.isEmpty
                ? "audit of \(scope)\(period): all rules hold"
                : "audit of \(scope)\(period): \(report.findings.count) finding(s)")
        lines.append(
            "  intents: \(report.intents) answered, \(report.pendingIntents.count) in progress; messages delivered: \(report.messagesDelivered)"
        )
        lines.append(
            "  transfers: \(report.postedTransfers) posted, \(report.voidedTransfers) voided, \(report.heldTransfers) held, \(report.creditsInTransit) credits in transit"
        )
        let deadLetterTotal = report.deadLetters.values.reduce(0, +)
        let reasons = report.deadLetters.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
            "\($0.key) \($0.value)"
        }
        lines.append(
            "  dead letters: "
                + (deadLetterTotal == 0 ? "none" : "\(deadLetterTotal) (\(reasons.joined(separator: ", ")))"))
        lines.append(
            "  signatures and chains: "
                + (report.integrity == nil ? "not checked (give the stage keys to check them)" : "checked"))
        lines.append("  confirmation bindings: \(report.bindingKeyCheck.rawValue)")
        for finding in report.findings { lines.append("  finding: \(finding)") }
        return lines
    }
}
