import PipelineAudit
import Testing

/// What `intentctl audit` prints on a terminal (issue 31, point 4): counts a person
/// reads, dead letters by reason, and every finding on its own line.
@Suite("The audit's summary for a person")
struct AuditSummaryTests {
    @Test("a clean run with dead letters: all rules hold, the dead letters counted by reason, no signature check")
    func clean() {
        var report = PipelineAudit.Report()
        report.intents = 7
        report.postedTransfers = 2
        report.messagesDelivered = 3
        report.deadLetters = ["stale": 1, "unparseable": 2]
        let lines = AuditSummary.lines(of: report, topicPrefix: "demo.")
        #expect(lines.first == "audit of the topics under demo.: all rules hold")
        #expect(lines.contains("  intents: 7 answered, 0 in progress; messages delivered: 3"))
        #expect(lines.contains("  dead letters: 3 (unparseable 2, stale 1)"))
        #expect(lines.contains("  signatures and chains: not checked (give the stage keys to check them)"))
        #expect(!lines.contains { $0.hasPrefix("  finding:") })
    }

    @Test("findings are counted at the top and listed one per line")
    func findings() {
        var report = PipelineAudit.Report()
        report.findings = ["intent i1 has 2 final responses", "transfer t1 posted without confirmation"]
        let lines = AuditSummary.lines(of: report, topicPrefix: "")
        #expect(lines.first == "audit of the pipeline's topics: 2 finding(s)")
        #expect(lines.contains("  dead letters: none"))
        #expect(
            lines.suffix(2) == [
                "  finding: intent i1 has 2 final responses", "  finding: transfer t1 posted without confirmation",
            ])
    }
}
