import Testing

@testable import StageSimulation

/// Exactly-once effects when a member of a stage dies with work in flight (decided, not
/// published; published, not acknowledged; acknowledged, not committed) and a new member
/// takes its partitions: for each stage and a few moments of the load, every intent gets
/// exactly one final response, no transfer moves twice, balances are the sums of their
/// entries (the run's invariants). Committing input offsets at decision time instead
/// (before the outputs land) is caught by one of the same schedules. (The exactly-once
/// checks of the broker test `CrashRecoveryTests`; its process kill stays there.)
@Suite struct CrashRecoverySimulationTests {
    enum Stage: String, CaseIterable { case resolve, confirm, payments, handle }

    /// 10 intents spoken at once, a crash (and a new member) in `stage` after `steps`.
    static func crashed(_ stage: Stage, after steps: Int, _ mutations: Set<PipelineSimulation.Mutation> = [])
        -> PipelineSimulation.Report
    {
        var scenario = PipelineScenario(seed: UInt64(steps), intents: 10, faults: true, mutations: mutations)
        scenario.speak(10)
        scenario.run(steps: steps)
        switch stage {
        case .resolve: scenario.crash(\.resolve)
        case .confirm: scenario.crash(\.confirm)
        case .payments: scenario.crash(\.payments)
        case .handle: scenario.crash(\.handle)
        }
        scenario.run(steps: 50)
        scenario.settle()
        return scenario.checked()
    }

    static let moments = [3, 30]

    @Test(
        "a crash in any stage at any of several moments: one final response each, nothing twice",
        arguments: Stage.allCases)
    func crashKeepsExactlyOnce(_ stage: Stage) async {
        let reports = await onOwnThread { Self.moments.map { Self.crashed(stage, after: $0) } }
        for (steps, report) in zip(Self.moments, reports) {
            #expect(report.failures == [], "\(stage) crashed after \(steps) steps")
            #expect(report.crashes == 1)
        }
    }

    @Test("committing at decision time is caught by a crash schedule")
    func commitAtDecisionIsCaught() async {
        let caught = await onOwnThread {
            Stage.allCases.contains { stage in
                Self.moments.contains { !Self.crashed(stage, after: $0, [.commitAtDecision]).held }
            }
        }
        #expect(caught)
    }
}
