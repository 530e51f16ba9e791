import Testing

@testable import StageSimulation

/// Members added and removed under load, and crashed (issue 11, point 4): partitioned state
/// moves with its partitions, and nothing is lost or done twice. Scripted on the in-memory
/// cluster with publishes and commits failing: payments 1 → 3 → 1 and handle 1 → 2, a
/// crash of a member of every stage, requests flowing throughout; the run's invariants
/// hold. The same script with input offsets committed when a batch is decided (before its
/// outputs land) breaks them: work in flight when partitions move is really redone. (Moved
/// from the broker test `ScalingTests.scaleUnderLoad`.)
@Suite struct ScalingSimulationTests {
    static func scaled(seed: UInt64, _ mutations: Set<PipelineSimulation.Mutation> = []) -> (
        report: PipelineSimulation.Report, payments: Int, handle: Int
    ) {
        var scenario = PipelineScenario(seed: seed, intents: 42, faults: true, mutations: mutations)
        // 10 ms a step: the payments stage snapshots (every 2 s) between the steps.
        func load(_ steps: Int = 250) {
            scenario.speak(7)
            scenario.run(steps: steps, interval: .milliseconds(10))
        }
        load()
        scenario.scale(\.payments, to: 3)
        load()
        scenario.scale(\.handle, to: 2)
        load()
        // The crashes come while the next requests are on their way through the stages.
        scenario.speak(7)
        scenario.run(steps: 4)
        scenario.crash(\.resolve)
        scenario.crash(\.confirm)
        scenario.crash(\.payments, member: 1)
        scenario.crash(\.handle, member: 1)
        load()
        scenario.scale(\.payments, to: 1)
        load()
        scenario.settle()
        return (scenario.checked(), scenario.members(of: \.payments), scenario.members(of: \.handle))
    }

    @Test("payments 1 → 3 → 1 and handle 1 → 2 with a crash in every stage: the invariants hold")
    func scaleUnderLoad() async {
        let (run, mutatedHeld) = await onOwnThread {
            (Self.scaled(seed: 1), Self.scaled(seed: 1, [.commitAtDecision]).report.held)
        }
        #expect(run.report.failures == [])
        #expect(run.payments == 1)
        #expect(run.handle == 2)
        #expect(run.report.crashes == 4)
        #expect(run.report.postedTransfers > 0)
        #expect(run.report.snapshots > 0)
        #expect(!mutatedHeld, "work lost in a hand-over must be caught")
    }
}
