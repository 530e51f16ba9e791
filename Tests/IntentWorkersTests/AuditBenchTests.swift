import BrokerTestSupport
import Foundation
import Testing

/// `intent-bench audit` writes a payment and a resolve history as the stages write them, then
/// requires the audit to find nothing and both replays (`ResolveReplay`, `ConfirmReplay`) to
/// re-derive every decision unchanged; it exits non-zero otherwise. Run on a small history
/// here, so a drift between what the stages record and what the replays compare is caught at
/// the commit that makes it: the resolve replay began comparing only decisions stamped with
/// its resolver's configuration, the benchmark's history was not stamped, and the benchmark
/// failed ("re-derived 0 of 60000") unseen until it was next run by hand.
@Suite("intent-bench audit on a small history", .heavyTimeLimit(minutes: 3))
struct AuditBenchTests {
    struct Report: Decodable {
        var audit_records: Int
        var replay_records: Int
        var confirm_replay_records: Int
    }

    @Test("the audit finds nothing, and the resolve and confirm replays re-derive every decision unchanged")
    func smallHistoryAuditsAndReplays() async throws {
        // 20 transfers and 20 requests for 4 users.
        let report = try await BenchCommand.run(
            ["audit", "--transfers", "20", "--requests", "20", "--users", "4", "--partitions", "2", "--runs", "1"],
            as: Report.self, timeout: .seconds(150))
        // Each transfer is at least a resolved intent, a proposal, an answer, a hold and a post;
        // each request a request and a decision.
        #expect(report.audit_records >= 20 * 4)
        #expect(report.replay_records >= 20 * 2)
        #expect(report.confirm_replay_records >= 20 * 3)
    }
}
