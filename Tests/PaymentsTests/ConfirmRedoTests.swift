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
        #expect(confirmed("i2", ledger).refusal?.code == .failureInsufficientFunds)
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
        #expect(confirmed("i2", ledger).refusal?.code == .failure)
    }

    @Test("refused for too little money, topped up, redone: the refusal stands, said once, and nothing moves")
    func redoAfterRefusal() throws {
        var ledger = try fundedLedger()
        func confirmed() -> StageResult {
            let event = resolved(pay("1200"), intentID: "i1")
            return confirm.process(key: "alice", value: event.encoded(), signature: signature(event), ledger: ledger)
        }
        let first = confirmed()
        let refusal = try #require(first.events(to: .confirmations).first)
        #expect(first.refusal?.code == .failureInsufficientFunds)
        #expect(first.response == nil)
        #expect(first.confirmationRequest == nil)
        // The top-up lands before the refusal reaches the payments stage; the redo proposes.
        try ledger.apply(LedgerEvent.deposit(id: "deposit-alice-2", userID: "alice", amount: cny("500")))
        let redo = confirmed()
        let proposal = try #require(redo.events(to: .confirmations).first)
        #expect(proposal.id == refusal.id)
        let binding = try #require(redo.confirmationRequest?.binding)

        // The payments stage takes the first: closed, with the refusal's sentence.
        let closed = payments.process(
            key: "alice", value: refusal.encoded(), signature: signature(refusal), ledger: &ledger, now: t0)
        #expect(closed.ledgerKinds == [.proposalClosed])
        let said = try #require(closed.events(to: .responses).first)
        #expect(closed.response?.code == .failureInsufficientFunds)
        // The redo's proposal (a member that does not remember the first) and the user's
        // answer to its prompt move nothing; the proposal repeats the final response's id.
        let again = payments.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        #expect(again.ledgerKinds.isEmpty)
        #expect(again.events(to: .responses).map { $0.encoded() } == [said.encoded()], "the same bytes")
        // The refusal redelivered to a member that forgot it: the same bytes again.
        let redelivered = payments.process(
            key: "alice", value: refusal.encoded(), signature: signature(refusal), ledger: &ledger, now: t0)
        #expect(redelivered.events.map { $0.event.encoded() } == [said.encoded()])
        let (answer, answerSignature) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        let answered = payments.process(
            key: "alice", value: answer.encoded(), signature: answerSignature, ledger: &ledger, now: t0)
        #expect(answered.events.isEmpty)
        #expect(answered.rejected?.reason == .notPending)
        // An answer made to look like the deciding event (under the refusal's id) is not
        // answered either: no answer decides a closed proposal.
        let (posing, posingSignature) = answerEvent(.confirmed, binding: binding, intentID: "i1", id: refusal.id)
        let posed = payments.process(
            key: "alice", value: posing.encoded(), signature: posingSignature, ledger: &ledger, now: t0)
        #expect(posed.events.isEmpty)
        #expect(posed.rejected?.reason == .notPending)
        #expect(ledger.transfer(forIntent: "i1", of: "alice") == nil)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1500")))
        // Redone once more, now that the refusal is on the ledger: nothing more is said.
        #expect(confirmed().events.isEmpty)
    }

    @Test("a refusal whose reason is a code says that code only if it is a failure's: never success")
    func refusalNeverSaysSuccess() throws {
        var ledger = try fundedLedger()
        for (reason, intentID) in [("success", "s1"), ("ready", "s2"), ("failureInsufficientFunds", "s3")] {
            let forged = EventEnvelope(
                id: "refusal-\(intentID)", source: PipelineSource.confirm, type: IntentConfirmation.type, time: t0,
                dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c", intentID: intentID,
                payload: IntentConfirmation(
                    turn: 1, intent: pay("1"), code: .failure, reason: reason, proposedResponse: "no"))
            let closed = payments.process(
                key: "alice", value: forged.encoded(), signature: signature(forged), ledger: &ledger, now: t0)
            let expected: ResponseCode = reason == "failureInsufficientFunds" ? .failureInsufficientFunds : .failure
            #expect(closed.response?.code == expected, "reason \(reason)")
            // A redo's proposal under the same id is answered the same.
            let proposal = EventEnvelope(
                id: forged.id, source: PipelineSource.confirm, type: IntentConfirmation.type, time: t0,
                dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c", intentID: intentID,
                payload: IntentConfirmation(turn: 1, intent: pay("1"), code: .ready, proposedResponse: "ok?"))
            let again = payments.process(
                key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
            #expect(again.response?.code == expected, "reason \(reason)")
        }
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
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
