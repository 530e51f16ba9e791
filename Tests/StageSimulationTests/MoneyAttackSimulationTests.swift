import Foundation
import IntentEvents
import Intents
import Payments
import Testing

@testable import StageSimulation

/// The stage logic of the money attacks (issue 16) on the simulated pipeline: proposals
/// straight onto the payments stage's input (unsigned, signed by an impostor's key, signed
/// by the wrong stage) are dead-lettered and reserve nothing, and ledger records forged
/// beside them (an unsigned deposit, a hold under the ledger operator's key, which may only
/// open accounts and deposit) move no money: the payer's real payment of everything she
/// has goes through, and one yuan more is refused. (From the broker test
/// `MoneyAttackTests.forgedStageEvents`; the broker suite keeps the process-level attacks.)
@Suite struct MoneyAttackSimulationTests {
    let payer = "user-100"
    let payee = "user-101"

    /// A proposal of 900 CNY expiring in 2099, as the confirm stage would write it.
    func proposal(_ id: String, source: String, _ world: SimulatedWorld) -> EventEnvelope {
        let intent = Intent.sendPayment(
            SendPaymentIntent(
                payee: Person(spoken: payee, handle: SimulatedWorld.handle(payee), contactID: "c-\(payee)"),
                currencyAmount: CurrencyAmount(amount: DecimalAmount("900")!, currency: "CNY")))
        return EventEnvelope(
            id: "forged-\(id)", source: source, type: IntentConfirmation.type, time: world.date,
            dataSchema: IntentConfirmation.dataSchema, userID: payer, conversationID: "c", intentID: "forged-\(id)",
            payload: IntentConfirmation(
                turn: 1, intent: intent, code: .ready, proposedResponse: "OK",
                binding: ConfirmationBinding(
                    digest: String(repeating: "ab", count: 32),
                    expiresAt: Timestamp(Date(timeIntervalSince1970: 4_070_908_800)))))
    }

    @Test("forged proposals are dead-lettered and reserve nothing; forged ledger records move nothing")
    func forgedStageEvents() {
        var scenario = PipelineScenario(intents: 0)
        let world = scenario.world
        let impostor = EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 0x66, count: 32)])
        let unsigned = proposal("unsigned", source: PipelineSource.confirm, world).encoded()
        let byImpostor = proposal("impostor", source: PipelineSource.confirm, world).encoded()
        let byResolve = proposal("by-resolve", source: PipelineSource.resolve, world)
        let forged: [InMemoryCluster.Record] = [
            .init(key: payer, value: unsigned, signature: nil),
            .init(
                key: payer, value: byImpostor,
                signature: impostor.signature(forCanonical: byImpostor, source: PipelineSource.confirm)),
            world.record(of: byResolve),
        ]
        for record in forged { scenario.append(record, to: SimulatedWorld.topics.confirmations) }
        let deposit = LedgerEvent.deposit(
            id: "free-money", userID: payer, amount: CurrencyAmount(amount: DecimalAmount("1000000")!, currency: "CNY"))
        scenario.append(
            .init(
                key: payer, value: deposit.envelope(source: PipelineSource.payments, time: world.date).encoded(),
                signature: nil),
            to: SimulatedWorld.topics.ledger)
        let thousand = CurrencyAmount(amount: DecimalAmount("1000")!, currency: "CNY")
        let hold = LedgerEvent(
            id: "operator-hold", kind: .hold, userID: payer, intentID: "x", transferID: "tr-x",
            entries: [
                LedgerEntry(account: Ledger.available(payer), side: .debit, amount: thousand),
                LedgerEntry(account: Ledger.held(payer), side: .credit, amount: thousand),
            ], counterpartyUserID: payee, amount: thousand)
        scenario.append(
            world.record(of: hold.envelope(source: PipelineSource.ledgerOperator, time: world.date)),
            to: SimulatedWorld.topics.ledger)
        scenario.run(steps: 50)

        let parked = Set(scenario.world.cluster.records(of: SimulatedWorld.topics.deadLetter).map(\.record.value))
        #expect(forged.allSatisfy { parked.contains($0.value) }, "every forged proposal is dead-lettered")
        let held = scenario.events(of: SimulatedWorld.topics.ledger).filter {
            $0.intentID?.hasPrefix("forged-") == true
        }
        #expect(held.isEmpty, "a forged proposal reserved money")

        // Everything the payer has (her opening 1,000 CNY): nothing was reserved or deposited by the forgeries.
        let everything = scenario.pay("1000", from: payer, to: payee)
        scenario.settle()
        #expect(scenario.finalResponses(of: everything).map(\.code) == [.success])
        let oneMore = scenario.pay("1", from: payer, to: payee)
        scenario.settle()
        #expect(scenario.finalResponses(of: oneMore).map(\.code) == [.failureInsufficientFunds])
    }
}
