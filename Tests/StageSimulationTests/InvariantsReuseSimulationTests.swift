import Foundation
import IntentEvents
import Intents
import Payments
import Testing

@testable import StageSimulation

/// The end-of-run check takes the envelopes the world decoded as records were appended (and
/// the ledger events it verified) instead of decoding the same bytes again: it must come to
/// the report it gives decoding every record from its bytes, on held runs, on runs a mutation
/// breaks (whose failures name records), and with ledger records the world refused (forged:
/// the audit decodes those itself).
@Suite struct InvariantsReuseSimulationTests {
    @Test(
        "reusing the world's decodings gives the same report",
        arguments: [
            (nil, 1, 60), (nil, 2, 60), (.skipLedgerRestore, 1, 150), (.commitAtDecision, 1, 40),
            (.dropDeadLetters, 1, 30), (.duplicateLedgerEvents, 1, 30),
        ] as [(PipelineSimulation.Mutation?, UInt64, Int)])
    func sameReport(mutation: PipelineSimulation.Mutation?, seed: UInt64, intents: Int) async {
        let (reusing, decoding) = await onOwnThread {
            let simulation = PipelineSimulation.ran(
                seed: seed, intents: intents, mutations: mutation.map { [$0] } ?? [])
            return (simulation.checked(), simulation.checked(decodingEverything: true))
        }
        #expect(reusing == decoding)
        // A mutation's run fails, a plain one holds: the comparison covers both kinds of report.
        #expect(reusing.held == (mutation == nil), "\(reusing.failures)")
    }

    @Test("forged ledger records, which the world does not decode, are read by the check itself")
    func forgedLedgerRecords() async {
        let (reusing, decoding, refused) = await onOwnThread {
            var scenario = PipelineScenario(intents: 0)
            let world = scenario.world
            let deposit = LedgerEvent.deposit(
                id: "free-money", userID: "user-100",
                amount: CurrencyAmount(amount: DecimalAmount("1000000")!, currency: "CNY"))
            scenario.append(
                .init(
                    key: "user-100",
                    value: deposit.envelope(source: PipelineSource.payments, time: world.date).encoded(),
                    signature: nil),
                to: SimulatedWorld.topics.ledger)
            scenario.pay("10", from: "user-100", to: "user-101")
            scenario.settle()
            let refused = scenario.world.decodedEnvelopes[SimulatedWorld.topics.ledger, default: [:]].values
                .joined().filter { $0 == nil }.count
            return (scenario.checked(), scenario.simulation.checked(decodingEverything: true), refused)
        }
        #expect(refused == 1, "the unsigned deposit is the one ledger record the world refused")
        #expect(reusing == decoding)
        #expect(reusing.held, "\(reusing.failures)")
    }
}
