import Foundation
import IntentEvents
import Intents
import Payments
import PipelineAudit
import Testing

@Suite("The audit finds broken rules")
struct AuditTests {
    func wrap(_ event: LedgerEvent) -> EventEnvelope { event.envelope(source: "/test", time: t0) }

    func response(_ id: String, intent: String, _ code: ResponseCode) -> EventEnvelope {
        EventEnvelope(
            id: id, source: "/test", type: IntentResponse.type, time: t0, userID: "alice", conversationID: "c",
            intentID: intent, payload: IntentResponse(kind: .sendPayment, code: code, message: "m"))
    }

    /// A clean history: a deposit, a hold and a confirmed post, one final response.
    func history() -> (ledger: [EventEnvelope], answers: [EventEnvelope], responses: [EventEnvelope]) {
        let binding = bindingFor(pay("100"), intentID: "i1")
        let hold = LedgerEvent(
            id: "hold", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: "bob", counterpartyContactID: "c-bob", amount: cny("100"),
            expiresAt: binding.expiresAt)
        let post = LedgerEvent(
            id: "post", kind: .post, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: "bob")
        let deposit = LedgerEvent.deposit(id: "deposit", userID: "alice", amount: cny("1000"))
        let (answer, _) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        return ([deposit, hold, post].map(wrap), [answer], [response("r1", intent: "i1", .success)])
    }

    @Test("a clean history passes")
    func clean() {
        let (ledger, answers, responses) = history()
        let report = PipelineAudit.audit(
            responses: responses, ledger: ledger, confirmations: answers, messages: [], bindingKey: bindingKey)
        #expect(report.findings == [])
        #expect(report.postedTransfers == 1)
        #expect(report.intents == 1)
    }

    @Test("two final responses, a post without confirmation, a forged binding, a second post: each is found")
    func broken() {
        let (ledger, answers, responses) = history()
        let twoFinals = responses + [response("r2", intent: "i1", .failure)]
        #expect(
            PipelineAudit.audit(responses: twoFinals, ledger: ledger, confirmations: answers, messages: []).findings
                .count == 2)
        #expect(
            PipelineAudit.audit(responses: responses, ledger: ledger, confirmations: [], messages: []).findings
                == ["transfer t1 was posted without its payer's confirmation"])
        let otherKey = BindingKey(Array(repeating: 99, count: 32))
        #expect(
            PipelineAudit.audit(
                responses: responses, ledger: ledger, confirmations: answers, messages: [], bindingKey: otherKey
            ).findings == ["transfer t1 was posted on a confirmation that does not match it"])
        var secondPost = try! ledger[2].decodeData(as: LedgerEvent.self)
        secondPost.id = "post-again"
        let doubled = ledger + [wrap(secondPost)]
        let report = PipelineAudit.audit(responses: responses, ledger: doubled, confirmations: answers, messages: [])
        #expect(!report.findings.isEmpty, "a second post of one transfer must be found")
    }
}
