import Intents
import Testing

@testable import StageSimulation

/// A payments member that gains a ledger partition starts from the partition's last
/// snapshot plus the ledger records written after it, and decides nothing before both are
/// in: a payment only the two together cover succeeds. The same script with the restore
/// broken on purpose (the records after the snapshot skipped) refuses it, so the test can
/// fail. (Moved from the broker test `SnapshotRestoreTests.restoresSnapshotAndTail`.)
@Suite struct SnapshotRestoreSimulationTests {
    static let payer = "user-100"
    static let payee = "user-101"

    /// The codes of the second payment's final responses, and whether the payer's partition
    /// had a snapshot before the top-up was written.
    static func restoredPayment(_ mutations: Set<PipelineSimulation.Mutation>) -> (
        codes: [ResponseCode], snapshotted: Bool, report: PipelineSimulation.Report
    ) {
        var scenario = PipelineScenario(intents: 0, mutations: mutations)
        let first = scenario.pay("100", from: payer, to: payee)
        // Settling runs past the payments stage's snapshot interval: 900 CNY left, in the snapshot.
        scenario.settle()
        #expect(scenario.finalResponses(of: first).map(\.code) == [.success])
        let partition = scenario.world.cluster.partition(forKey: payer)
        let snapshotted = scenario.world.ledgerSnapshots[partition] != nil
        // Written after the snapshot: only the tail has it. 900 + 5,000 covers 5,500.
        scenario.deposit("5000", to: payer)
        let second = scenario.pay("5500", from: payer, to: payee)
        // The only payments member dies before deciding; the new one restores the partition.
        scenario.crash(\.payments)
        scenario.settle()
        return (scenario.finalResponses(of: second).map(\.code), snapshotted, scenario.checked())
    }

    @Test("after a restart the member reads the snapshot and the records after it, and decides with both")
    func restoresSnapshotAndTail() {
        let restored = Self.restoredPayment([])
        #expect(restored.snapshotted)
        #expect(restored.codes == [.success])
        #expect(restored.report.failures == [])
        let broken = Self.restoredPayment([.skipLedgerRestore])
        #expect(broken.codes == [.failureInsufficientFunds], "the tail skipped: the top-up is missing")
    }
}
