import IntentEvents
import Intents
import Testing

@testable import StageSimulation

/// Validly signed records re-appended to the stages' input topics (requests, resolved
/// intents, proposals, confirmed messages) act on nothing again, also after every stage
/// restarted with no memory (what was acted on is rebuilt from the inputs: the replay
/// memory). Each intent is asked, held and answered once; resolve takes the requests'
/// copies for repeats. (Moved from the broker suite `StageReplayTests`; its stale-event
/// test stays there.)
@Suite struct StageReplaySimulationTests {
    static let inputs = [
        SimulatedWorld.topics.requested, SimulatedWorld.topics.resolved, SimulatedWorld.topics.confirmations,
        SimulatedWorld.topics.confirmed,
    ]

    /// How many events of `type` each intent has on `topic`.
    static func counts(_ scenario: PipelineScenario, _ topic: String, _ type: String) -> [String: Int] {
        scenario.events(of: topic).filter { $0.type == type }.reduce(into: [:]) {
            $0[$1.intentID ?? "", default: 0] += 1
        }
    }

    @Test("after every stage restarted, re-appended requests and stage events ask, hold and answer nothing again")
    func replaysAfterRestart() {
        var scenario = PipelineScenario(intents: 12)
        scenario.pay("10", from: "user-100", to: "user-101")
        scenario.speak(12)
        scenario.settle()
        let asked = Self.counts(scenario, SimulatedWorld.topics.prompts, ConfirmationRequest.type)
        let resolved = Self.counts(scenario, SimulatedWorld.topics.resolved, IntentResolutionReport.resolvedType)
        #expect(asked.count > 2 && resolved.count > 6, "payments and messages went through")
        let captured = Self.inputs.map { topic in (topic, scenario.world.cluster.records(of: topic).map(\.record)) }

        scenario.restartEveryStage()
        for (topic, records) in captured {
            for record in records { scenario.append(record, to: topic) }
        }
        scenario.settle()

        #expect(Self.counts(scenario, SimulatedWorld.topics.prompts, ConfirmationRequest.type) == asked)
        // Each resolved intent: its original and the copy appended above, nothing resolved again.
        #expect(
            Self.counts(scenario, SimulatedWorld.topics.resolved, IntentResolutionReport.resolvedType)
                == resolved.mapValues { $0 * 2 })
        // The audit's rules: one final response per intent, one hold and one post-or-void per transfer.
        #expect(scenario.checked().failures == [])
    }
}
