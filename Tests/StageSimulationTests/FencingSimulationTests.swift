import Foundation
import IntentEvents
import Intents
import Payments
import Testing

@testable import StageSimulation

/// The schedule of `intent-bench simulate --seed 103 --intents 2000` (docs/simulation.md,
/// Findings), scripted: a payments member's expiry sweep voids a hold and the round with
/// the void does not land (the member is cut off from the broker); the hold's partition
/// moves to another member, which decides the user's late answer with a void under the
/// same derived id but another cause (the answer, not the expiry); then the first member's
/// round lands after all. Both voids are on the ledger topic, as in production, where the
/// second member's claim fences the first member's write: every reader (the ledger, the
/// audit) refuses it, and the first member, reading its round back behind that claim, stops
/// without sending its response. The run's invariants hold and the intent has one final
/// response. (Before the simulation fenced as the worker does, the same schedule broke
/// them: "ledger event … was written twice with different contents", two responses.)
@Suite struct FencingSimulationTests {
    @Test("a void's round landing after the next owner's claim is refused, and its response never goes")
    func overtakenRoundIsFenced() throws {
        var scenario = PipelineScenario(intents: 0)
        let world = scenario.world
        // With two payments members, the second owns partitions 3, 4 and 5 (the range assignor).
        let payer = try #require(world.users.first { world.cluster.partition(forKey: $0) >= 3 })
        let payee = try #require(world.users.first { $0 != payer })
        let intent = scenario.pay("10", from: payer, to: payee)
        scenario.withholdAnswer(intent)
        scenario.run(steps: 100)
        #expect(ledgerEvents(of: intent, scenario).map(\.kind) == [.hold], "the hold is placed, nothing answered")

        let first = try #require(scenario.simulation.payments.members.first?.name)
        scenario.cutOff(first)
        // 6 s: past the 5 s confirmation window; the first member's sweep voids the hold.
        scenario.run(steps: 60, interval: .milliseconds(100))
        #expect(ledgerEvents(of: intent, scenario).map(\.kind) == [.hold], "the expiry's void has not landed")
        scenario.scale(\.payments, to: 2)
        scenario.answer(intent)
        scenario.run(steps: 20)
        scenario.reconnect(first)
        scenario.run(steps: 100, interval: .milliseconds(100))
        scenario.settle()

        let voids = ledgerEvents(of: intent, scenario).filter { $0.kind == .void }
        // The schedule wrote the void's id twice with different contents: the late answer's, then the expiry's.
        #expect(voids.count == 2)
        #expect(Set(voids.map(\.id)).count == 1)
        #expect(voids.map(\.decidedBy) == ["answer-\(intent)", Ledger.expiryID(userID: payer, intentID: intent)])
        #expect(
            voids.last?.owner?.hasSuffix("/\(first)") == true,
            "the expiry's void is stamped with the first member's claim")
        let report = scenario.checked()
        #expect(report.failures == [])
        #expect(report.fencedStops == 1)
        #expect(scenario.finalResponses(of: intent).map(\.reason) == ["confirmationExpired"])
    }

    /// The ledger topic's events of `intent`, in partition order.
    private func ledgerEvents(of intent: String, _ scenario: PipelineScenario) -> [LedgerEvent] {
        scenario.events(of: SimulatedWorld.topics.ledger).filter { $0.intentID == intent }.compactMap {
            try? LedgerEvent.decode(from: $0)
        }
    }
}
