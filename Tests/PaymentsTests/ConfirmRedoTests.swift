import Confirmation
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Payments
import Testing

/// The confirm stage redoing a resolved payment after the payments stage acted on its
/// proposal (a confirm member crashed, or lost the partition, after its proposal landed and
/// before its input offset was committed): the hold of this very payment is on the ledger
/// the redo reads, and must not make the funds check refuse what it accepted the first time
/// (a "not enough money" final response beside the payment's own). Found by the pipeline
/// simulation (docs/simulation.md, Findings: seed 9 at 2,000 intents, with fencing).
@Suite("The confirm stage's redo of a proposed payment")
struct ConfirmRedoTests {
    let confirm = ConfirmStage(bindingKey: bindingKey, authenticator: stageKeys)
    let payments = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    func resolved(_ intent: Intent, intentID: String) -> EventEnvelope {
        EventEnvelope(
            id: "resolved-\(intentID)", source: PipelineSource.resolve, type: IntentResolutionReport.resolvedType,
            time: t0, dataSchema: IntentResolutionReport.resolvedDataSchema, userID: "alice", conversationID: "c",
            intentID: intentID, payload: IntentResolutionReport(turn: 1, intent: intent, parameters: []))
    }

    func confirmed(_ intentID: String, _ ledger: Ledger) -> StageResult {
        let event = resolved(pay("600"), intentID: intentID)
        return confirm.process(key: "alice", value: event.encoded(), signature: signature(event), ledger: ledger)
    }

    /// A redo proposes again what the first decision proposed: the same event id, binding and prompt.
    func expectSameProposal(_ redo: StageResult, as first: StageResult, _ proposal: EventEnvelope) throws {
        let again = try #require(redo.events(to: .confirmations).first)
        #expect(again.id == proposal.id)
        #expect(
            try again.decodeData(as: IntentConfirmation.self).binding
                == proposal.decodeData(as: IntentConfirmation.self).binding)
        #expect(redo.confirmationRequest?.binding == first.confirmationRequest?.binding)
    }

    @Test("held for this intent, the redo proposes the same again; another intent is still refused")
    func redoAfterHold() throws {
        var ledger = try fundedLedger()
        let first = confirmed("i1", ledger)
        let proposal = try #require(first.events(to: .confirmations).first)
        #expect(first.response == nil)
        // The payments stage holds 600 of Alice's 1,000.
        let held = payments.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        #expect(held.events(to: .ledger).count == 1)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("400")))

        let redo = confirmed("i1", ledger)
        #expect(redo.response == nil, "no second final response")
        let again = try #require(redo.events(to: .confirmations).first)
        #expect(again.id == proposal.id)
        let confirmation = try again.decodeData(as: IntentConfirmation.self)
        #expect(confirmation.code == .ready)
        #expect(confirmation.binding == (try proposal.decodeData(as: IntentConfirmation.self)).binding)
        #expect(redo.confirmationRequest?.binding == first.confirmationRequest?.binding)
        // The payments stage takes the proposal once.
        let twice = payments.process(
            key: "alice", value: again.encoded(), signature: signature(again), ledger: &ledger, now: t0)
        #expect(twice.events.isEmpty)

        // Another intent of the same 600 finds 400 available.
        #expect(confirmed("i2", ledger).response?.code == .failureInsufficientFunds)
    }

    @Test("the payee's account closed after the hold: the redo proposes the same, bound to the same payee")
    func redoAfterPayeeClosed() throws {
        var ledger = try fundedLedger()
        let first = confirmed("i1", ledger)
        let proposal = try #require(first.events(to: .confirmations).first)
        _ = payments.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        #expect(ledger.transfer(forIntent: "i1", of: "alice")?.payee == "bob")
        try ledger.apply(LedgerEvent.closing(userID: "bob", version: 2))
        #expect(ledger.directory.account(handle: "bob@example.com") == nil)

        let redo = confirmed("i1", ledger)
        #expect(redo.response == nil, "no second final response: \(String(describing: redo.response))")
        try expectSameProposal(redo, as: first, proposal)
        // A new payment to the closed account is refused as before.
        #expect(confirmed("i2", ledger).response?.code == .failure)
    }

    @Test("a payment request taken by the payments stage, the payer's account closed since: the redo asks the same")
    func requestRedoAfterPayerClosed() throws {
        var ledger = try fundedLedger()
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: bob, currencyAmount: cny("50")))
        let event = resolved(ask, intentID: "r1")
        func confirmed() -> StageResult {
            confirm.process(key: "alice", value: event.encoded(), signature: signature(event), ledger: ledger)
        }
        let first = confirmed()
        let proposal = try #require(first.events(to: .confirmations).first)
        _ = payments.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        #expect(ledger.request(forIntent: "r1", of: "alice")?.payer == "bob")
        try ledger.apply(LedgerEvent.closing(userID: "bob", version: 2))

        let redo = confirmed()
        #expect(redo.response == nil, "no second final response: \(String(describing: redo.response))")
        try expectSameProposal(redo, as: first, proposal)
    }
}
