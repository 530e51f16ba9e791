import BrokerTestSupport
import Foundation
import Testing

/// `intent-bench restart` starts a payments worker cold on a ledger, restarts it from its
/// snapshots, then starts a second instance and waits until the two hold disjoint halves of
/// the partitions, with no input flowing. The first instance used to stop there: it learnt
/// of a revocation only with its next record or gain, so its next tick decided for the
/// partitions it had given up, met the new owner's claim and was fenced ("fenced while
/// deciding"). Scaling payments from one instance to two in a quiet hour stopped the old
/// one, and the benchmark failed after five minutes, unseen until it was next run by hand.
///
/// A long heavy test (23 s alone on a quiet machine): it goes ahead at the gate, or it ends a
/// loaded run alone (it was the last suite to finish, at 184 s, in the fresh-clone run beside
/// two burners of session 26, S26-3).
@Suite("intent-bench restart on a small ledger", .heavyTimeLimit(minutes: 8), .longHeavyTest)
struct RestartBenchTests {
    struct Report: Decodable {
        var cold_start_ms_2000: Double
        var restart_ms_2000: Double
        var rss_half_mb_2000: Double
    }

    @Test("a second payments instance joining a quiet group takes half the partitions; the first keeps the rest")
    func secondInstanceSplitsThePartitions() async throws {
        let report = try await BenchCommand.run(
            ["restart", "--events", "2000", "--users", "100"], as: Report.self, timeout: .seconds(420))
        #expect(report.cold_start_ms_2000 > 0 && report.restart_ms_2000 > 0 && report.rss_half_mb_2000 > 0)
    }
}
