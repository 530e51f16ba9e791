import Foundation
import IntentEvents
import Intents
import Payments
import Testing

@testable import StageSimulation

/// The schedule of `intent-bench simulate --seed 9 --intents 2000` once the simulation
/// fenced (docs/simulation.md, Findings), scripted: a confirm member's proposal lands and
/// the payments stage holds the money, but the member loses the broker before its prompt and
/// its commit; the next confirm member redoes the resolved intent with the hold on its
/// ledger. It must propose the same again (the payments stage ignores it), not answer "not
/// enough money" beside the payment's own final response.
@Suite struct ConfirmRedoSimulationTests {
    @Test("a confirm redo after the payments stage held this payment: one final response, the payment's")
    func redoAfterHold() throws {
        var scenario = PipelineScenario(intents: 0)
        // 600 of the payer's 1,000: once held, 400 are available.
        let intent = scenario.pay("600", from: "user-100", to: "user-101")
        scenario.withholdAnswer(intent)
        let first = try #require(scenario.simulation.confirm.members.first?.name)
        for _ in 0..<200 where !proposed(intent, scenario) { scenario.run(steps: 1) }
        #expect(proposed(intent, scenario))
        scenario.cutOff(first)
        for _ in 0..<200 where !held(intent, scenario) { scenario.run(steps: 1) }
        #expect(held(intent, scenario))
        scenario.crash(\.confirm)
        scenario.run(steps: 20)
        scenario.answer(intent)
        scenario.settle()

        let report = scenario.checked()
        #expect(report.failures == [])
        #expect(report.crashes == 1)
        #expect(scenario.finalResponses(of: intent).map(\.code) == [.success])
    }

    /// `intent-bench simulate --seed 108 --intents 2000`, scripted: the confirm stage refuses a
    /// payment for too little money and loses the broker before its commit; a top-up lands; the
    /// next confirm member redoes the resolved intent with the money there. Before the refusal
    /// went through the payments stage, the redo proposed it, the user confirmed the prompt and
    /// the payment was made beside the "not enough money" already said.
    @Test("a confirm redo after its refusal, the money there by then: one final response, the refusal")
    func redoAfterRefusal() throws {
        var scenario = PipelineScenario(intents: 0)
        let intent = scenario.pay("1200", from: "user-100", to: "user-101")
        let first = try #require(scenario.simulation.confirm.members.first?.name)
        for _ in 0..<200 where !decided(intent, scenario) { scenario.run(steps: 1) }
        #expect(decided(intent, scenario))
        scenario.cutOff(first)
        scenario.deposit("500", to: "user-100")
        scenario.crash(\.confirm)
        scenario.settle()

        let report = scenario.checked()
        #expect(report.failures == [])
        #expect(report.crashes == 1)
        #expect(scenario.finalResponses(of: intent).map(\.code) == [.failureInsufficientFunds])
        #expect(!held(intent, scenario), "no money moved")
    }

    /// Whether the confirm stage's decision on `intent` landed (a proposal, a refusal or a response).
    private func decided(_ intent: String, _ scenario: PipelineScenario) -> Bool {
        [SimulatedWorld.topics.confirmations, SimulatedWorld.topics.responses].contains { topic in
            scenario.events(of: topic).contains { $0.intentID == intent && $0.source == PipelineSource.confirm }
        }
    }

    private func proposed(_ intent: String, _ scenario: PipelineScenario) -> Bool {
        scenario.events(of: SimulatedWorld.topics.confirmations).contains {
            $0.intentID == intent && $0.type == IntentConfirmation.type
        }
    }

    private func held(_ intent: String, _ scenario: PipelineScenario) -> Bool {
        scenario.events(of: SimulatedWorld.topics.ledger).contains {
            $0.intentID == intent && (try? LedgerEvent.decode(from: $0))?.kind == .hold
        }
    }
}
