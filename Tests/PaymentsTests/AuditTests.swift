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

    /// A clean history: accounts, a deposit, the confirm stage's proposal to pay Bob, a hold, the
    /// user's confirmation and a post, one final response. `payee` is whom the hold and post pay.
    func history(payee: String = "bob") -> (
        ledger: [EventEnvelope], answers: [EventEnvelope], responses: [EventEnvelope]
    ) {
        let binding = bindingFor(pay("100"), intentID: "i1")
        let accounts = [("alice", "+1 555 0100"), ("bob", "bob@example.com"), ("mallory", "mallory@evil.example")].map {
            LedgerEvent(id: "open-\($0.0)", kind: .accountOpened, userID: $0.0, handles: [$0.1])
        }
        let account = payee == "bob" ? "bob@example.com" : "mallory@evil.example"
        let hold = LedgerEvent(
            id: "hold", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: payee, counterpartyContactID: "c-bob", counterpartyAccount: account,
            amount: cny("100"), expiresAt: binding.expiresAt)
        let post = LedgerEvent(
            id: "post", kind: .post, userID: "alice", intentID: "i1", transferID: "t1",
            entries: [
                LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.available(payee), side: .credit, amount: cny("100")),
            ], counterpartyUserID: payee)
        let deposit = LedgerEvent.deposit(id: "deposit", userID: "alice", amount: cny("1000"))
        let (answer, _) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        return (
            (accounts + [deposit, hold, post]).map(wrap), [proposal, answer], [response("r1", intent: "i1", .success)]
        )
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
                == [
                    "transfer t1 was posted without its payer's confirmation",
                    "transfer t1 was posted without a proposal from the confirm stage",
                ])
        let otherKey = BindingKey(Array(repeating: 99, count: 32))
        #expect(
            PipelineAudit.audit(
                responses: responses, ledger: ledger, confirmations: answers, messages: [], bindingKey: otherKey
            ).findings == ["transfer t1 was posted on a confirmation that does not match it"])
        var secondPost = try! ledger[5].decodeData(as: LedgerEvent.self)
        secondPost.id = "post-again"
        let doubled = ledger + [wrap(secondPost)]
        let report = PipelineAudit.audit(responses: responses, ledger: doubled, confirmations: answers, messages: [])
        #expect(!report.findings.isEmpty, "a second post of one transfer must be found")
    }

    @Test("a post that credits another account than the one the user confirmed is found")
    func swappedPayee() throws {
        // The hold and post pay Mallory, consistently with each other, but the user confirmed Bob's account.
        let (ledger, answers, responses) = history(payee: "mallory")
        let report = PipelineAudit.audit(responses: responses, ledger: ledger, confirmations: answers, messages: [])
        #expect(report.findings.count == 1)
        #expect(report.findings.first?.contains("instead of bob@example.com (bob)") == true, "\(report.findings)")
    }
}
