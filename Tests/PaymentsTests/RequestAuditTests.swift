import Foundation
import IntentEvents
import Intents
import Payments
import PipelineAudit
import Testing

/// The audit's rules for payment requests (SECURITY.md's known gaps named them: a post
/// paying a declined request, a request paid twice, a `requestPaid` with no post behind
/// it). Each side of a request lives on its own user's partition and each member applies
/// only its own, so only the audit, reading every partition, can tell these apart from a
/// clean history. The clean history is the payments stage's own output.
@Suite("The audit's payment request rules")
struct RequestAuditTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    /// Bob asks Alice for 50 CNY, and Alice pays it: every ledger record the payments stage
    /// writes on the way (both sides), the confirmations the audit checks posts against,
    /// and the request's id.
    func paidRequest() throws -> (ledger: [LedgerEvent], confirmations: [EventEnvelope], requestID: String) {
        var ledger = try fundedLedger()
        var written: [LedgerEvent] = []
        var confirmations: [EventEnvelope] = []
        func run(_ event: EventEnvelope, signature given: EventSignature? = nil) -> StageResult {
            let result = withEffectsDelivered(
                stage.process(
                    key: event.userID, value: event.encoded(), signature: given ?? signature(event), ledger: &ledger,
                    now: t0),
                stage, &ledger)
            written += result.events(to: .ledger).compactMap { try? LedgerEvent.decode(from: $0) }
            return result
        }
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        let asked = confirmedEvent(ask, user: "bob", intentID: "r1")
        _ = run(asked)
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(ask, user: "bob", intentID: "r1"), user: "bob", intentID: "r1")
        let requestID = try #require(run(answer, signature: answerSignature).response?.paymentRequestID)
        let payment = pay(
            "50", to: Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob"), requestID: requestID)
        let proposal = confirmedEvent(payment, intentID: "p1")
        #expect(run(proposal).ledgerKinds == [.hold])
        let (payAnswer, payAnswerSignature) = answerEvent(
            .confirmed, binding: bindingFor(payment, intentID: "p1"), intentID: "p1")
        #expect(run(payAnswer, signature: payAnswerSignature).ledgerKinds == [.post, .credit, .requestPaid])
        confirmations = [asked, answer, proposal, payAnswer]
        let opening = [("alice", "+1 555 0100", true), ("bob", "bob@example.com", true)].map {
            LedgerEvent(
                id: "open-\($0.0)", kind: .accountOpened, userID: $0.0, handles: [$0.1], verified: $0.2,
                accountVersion: 1)
        }
        let deposit = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: cny("1000"))
        return (opening + [deposit] + written, confirmations, requestID)
    }

    func audit(_ ledger: [LedgerEvent], _ confirmations: [EventEnvelope]) -> [String] {
        PipelineAudit.audit(
            responses: [], ledger: ledger.map { $0.envelope(source: PipelineSource.payments, time: t0) },
            confirmations: confirmations, messages: [], bindingKey: bindingKey
        ).findings.filter { $0.hasPrefix("payment request") }
    }

    @Test("a request paid once, as the payments stage writes it, is no finding")
    func clean() throws {
        let (ledger, confirmations, requestID) = try paidRequest()
        #expect(ledger.map(\.kind).filter { $0 == .requestPaid }.count == 1)
        #expect(ledger.contains { $0.kind == .hold && $0.requestID == requestID })
        #expect(audit(ledger, confirmations) == [])
    }

    @Test("a request paid by a second transfer is found")
    func paidTwice() throws {
        let (ledger, confirmations, requestID) = try paidRequest()
        // Alice's hold and post again, for another intent that pays the same request.
        let again = ledger.filter { $0.kind == .hold || $0.kind == .post }.map { event in
            var copy = event
            copy.id += "-again"
            copy.intentID = "p2"
            copy.transferID = "t-again"
            return copy
        }
        let found = audit(ledger + again, confirmations)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("payment request \(requestID) was paid 2 times") == true, "\(found)")
    }

    /// A hold's request id is the payments stage's word alone (the user's binding does not
    /// cover it): a holder of its key could mark a confirmed 0.01 payment as paying a 50
    /// request, and write the requester's side paid. Found from the request's own terms.
    @Test("a payment of a request for another amount or between other users than the request's is found")
    func paidOtherTerms() throws {
        let (ledger, confirmations, requestID) = try paidRequest()
        let original = try #require(ledger.first { $0.kind == .hold && $0.requestID == requestID })
        let kept = ledger.filter { $0.transferID != original.transferID || $0.kind == .requestPaid }
        for (amount, payee) in [("0.01", "bob"), ("50", "carol")] {
            let small = cny(amount)
            var hold = original
            hold.id = "hold-other"
            hold.transferID = "t-other"
            hold.counterpartyUserID = payee
            hold.amount = small
            hold.entries = LedgerEntry.move(small, from: Ledger.available("alice"), to: Ledger.held("alice"))
            let post = LedgerEvent(
                id: "post-other", kind: .post, userID: "alice", intentID: original.intentID, transferID: "t-other",
                entries: LedgerEntry.move(small, from: Ledger.held("alice"), to: Ledger.clearing),
                counterpartyUserID: payee)
            let history = kept.map { event in
                guard event.kind == .requestPaid else { return event }
                var settled = event
                settled.transferID = "t-other"
                return settled
            }
            let found = audit(history + [hold, post], confirmations)
            #expect(found.count == 1, "\(amount) to \(payee): \(found)")
            #expect(
                found.first?.hasPrefix("payment request \(requestID) was paid by transfer t-other with \(small)")
                    == true,
                "\(found)")
        }
    }

    @Test("a declined request that a transfer paid is found")
    func declinedAndPaid() throws {
        let (ledger, confirmations, requestID) = try paidRequest()
        let decline = LedgerEvent(
            id: "decline-\(requestID)", kind: .requestDeclined, userID: "alice", intentID: "r1", requestID: requestID,
            counterpartyUserID: "bob", amount: cny("50"), decidedBy: "decline-1", decidedAt: Timestamp(t0))
        let found = audit(ledger + [decline], confirmations)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("was declined, and paid by transfer") == true, "\(found)")
    }

    @Test("a requestPaid with no posted payment of that request behind it is found")
    func paidWithoutPost() throws {
        let (ledger, confirmations, requestID) = try paidRequest()
        let settled = try #require(ledger.first { $0.kind == .requestPaid })
        // Bob shown paid: by a transfer that does not exist, by one that was never posted
        // (the hold alone), or naming another payer.
        var unknown = settled
        unknown.transferID = "t-none"
        let heldOnly = ledger.filter { $0.kind != .post && $0.kind != .credit }
        var otherPayer = settled
        otherPayer.counterpartyUserID = "carol"
        for (broken, history) in [
            (unknown, ledger.filter { $0.kind != .requestPaid }), (settled, heldOnly),
            (otherPayer, ledger.filter { $0.kind != .requestPaid }),
        ] {
            let found = audit(history + (history.contains(broken) ? [] : [broken]), confirmations)
            #expect(found.count == 1, "\(found)")
            #expect(found.first?.hasPrefix("payment request \(requestID): \(settled.id) says it was paid") == true)
        }
    }
}
