import StageSimulation
import Testing

/// The seeded simulation of the whole pipeline on the in-memory cluster: a fixed set of
/// seeds must keep every invariant, a seed must replay exactly, and each mutation (a
/// fault put in on purpose) must be caught. A failing seed is named in the failure with
/// the command that runs it again alone.
@Suite struct PipelineSimulationTests {
    static let intents = 50

    static func rerun(_ seed: UInt64, _ intents: Int, _ mutation: PipelineSimulation.Mutation? = nil) -> String {
        "rerun with: intent-bench simulate --seed \(seed) --intents \(intents)"
            + (mutation.map { " --mutation \($0.rawValue)" } ?? "")
    }

    @Test(arguments: [1, 2] as [UInt64])
    func invariantsHoldUnderCrashesRebalancesAndFailedAcknowledgements(seed: UInt64) async {
        let report = await onOwnThread { PipelineSimulation.run(seed: seed, intents: Self.intents) }
        #expect(report.failures.isEmpty, "seed \(seed): \(report.failures); \(Self.rerun(seed, Self.intents))")
        #expect(report.held)
        // The faults and the flows happened: a run without them proves nothing.
        #expect(report.crashes > 0)
        #expect(report.rebalances > 4)
        #expect(report.failedAcknowledgements > 0)
        #expect(report.postedTransfers > 0)
        #expect(report.voidedTransfers > 0)
        #expect(report.hostileRecords > 0)
        #expect(report.deadLetters >= report.hostileRecords)
        #expect(report.finalResponses > Self.intents * 3 / 4)
    }

    @Test func theSameSeedGivesTheSameDigest() async {
        let (first, again, other) = await onOwnThread {
            (
                PipelineSimulation.run(seed: 42, intents: 30), PipelineSimulation.run(seed: 42, intents: 30),
                PipelineSimulation.run(seed: 43, intents: 30)
            )
        }
        #expect(first == again)
        #expect(first.digest != other.digest)
    }

    /// Seeds share nothing (`intent-bench simulate --seeds K` runs them side by side on
    /// every core): run at once in a task group, each seed gives the report it gives alone.
    @Test func seedsRunSideBySideReplayAsAlone() async {
        let seeds: [UInt64] = [42, 43, 44]
        let alone = await onOwnThread { seeds.map { PipelineSimulation.run(seed: $0, intents: 30) } }
        let together = await withTaskGroup(of: PipelineSimulation.Report.self) { group in
            for seed in seeds {
                group.addTask { await onOwnThread { PipelineSimulation.run(seed: seed, intents: 30) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.sorted { $0.seed < $1.seed } == alone)
    }

    /// Each mutation breaks an invariant the simulation checks on some seed of a few
    /// (today the first already): the invariants can fail. Sized per mutation, as small
    /// as still catches it, to keep the suite's CPU time low: losing the records after a
    /// snapshot needs a snapshot and a partition moving after it.
    @Test(arguments: [
        (PipelineSimulation.Mutation.skipLedgerRestore, 150), (.commitAtDecision, 40), (.dropDeadLetters, 30),
        (.duplicateLedgerEvents, 30),
    ])
    func aMutationIsCaught(_ mutation: PipelineSimulation.Mutation, intents: Int) async {
        let caught = await onOwnThread {
            (1...4 as ClosedRange<UInt64>).contains { seed in
                !PipelineSimulation.run(seed: seed, intents: intents, mutations: [mutation]).held
            }
        }
        #expect(caught, "no seed of 1...4 caught \(mutation.rawValue) with \(intents) intents")
    }
}
