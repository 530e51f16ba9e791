import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// What lets the payments worker's ledger follower pass over the records the worker itself
/// published: the stage applies to its ledger exactly what it publishes, so reading its own
/// records back (signed bytes, through ``LedgerRecord/decode(key:value:signature:keys:)``,
/// applied as a follower does) would change nothing.
@Suite("Payments stage: the ledger it holds is the ledger it publishes")
struct PublishedLedgerStateTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    @Test("every kind of decision: a replay of the published records equals the stage's ledger, and is a no-op on it")
    func replayEqualsState() throws {
        var ledger = try fundedLedger()
        var published: [EventEnvelope] = []
        func run(_ event: EventEnvelope, signature given: EventSignature? = nil, at now: Date = t0) {
            let result = withEffectsDelivered(
                stage.process(
                    key: event.userID, value: event.encoded(), signature: given ?? signature(event), ledger: &ledger,
                    now: now), stage, &ledger, now: now)
            published += result.events.filter { $0.destination == .ledger }.map(\.event)
        }
        func answer(_ intent: Intent, _ decision: ConfirmationAnswer.Decision, user: String = "alice", _ id: String) {
            let (event, signature) = answerEvent(
                decision, binding: bindingFor(intent, user: user, intentID: id), user: user, intentID: id)
            run(event, signature: signature, at: t0.addingTimeInterval(5))
        }
        // Paid; declined; expired in the sweep; refused for funds; payee without an account.
        run(confirmedEvent(pay("100"), intentID: "paid"))
        answer(pay("100"), .confirmed, "paid")
        run(confirmedEvent(pay("20"), intentID: "declined"))
        answer(pay("20"), .declined, "declined")
        run(confirmedEvent(pay("30"), intentID: "expired"))
        run(confirmedEvent(pay("5000"), intentID: "poor"))
        let dave = Person(spoken: "Dave", handle: "dave@example.com", contactID: "c-dave")
        run(confirmedEvent(pay("1", to: dave), intentID: "nobody"))
        // A request: proposed, created, declined; another proposed and left to expire; one paid.
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        for id in ["r1", "r2", "r3"] {
            let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
            run(confirmedEvent(ask, user: "bob", intentID: id))
            if id != "r2" { answer(ask, .confirmed, user: "bob", id) }
        }
        let r1 = Ledger.requestID(userID: "bob", intentID: "r1")
        let decline = EventEnvelope(
            id: "decline-r1", source: "/voice/test", type: PaymentRequestDecline.type, time: t0,
            dataSchema: PaymentRequestDecline.dataSchema, userID: "alice", conversationID: "c",
            payload: PaymentRequestDecline(paymentRequestID: r1))
        run(decline, signature: authenticator.signature(for: decline))
        let r3 = Ledger.requestID(userID: "bob", intentID: "r3")
        let payment = pay("50", requestID: r3)
        run(confirmedEvent(payment, intentID: "p3"))
        answer(payment, .confirmed, "p3")
        let swept = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(500), owns: { _ in true })
        published += swept.events.filter { $0.destination == .ledger }.map(\.event)

        let kinds = try published.map { try $0.decodeData(as: LedgerEvent.self).kind }
        for kind in [
            LedgerEvent.Kind.hold, .post, .credit, .void, .proposalClosed, .requestProposed, .requestCreated,
            .requestReceived, .requestDeclined, .requestPaid,
        ] {
            #expect(kinds.contains(kind), "covers \(kind)")
        }

        // The records as a follower reads them: signed bytes, strictly decoded and verified.
        var replayed = try fundedLedger()
        var again = ledger
        for event in published {
            let bytes = event.encoded()
            let decoded = try LedgerRecord.decode(
                key: event.userID, value: bytes,
                signature: stageKeys.signature(forCanonical: bytes, source: event.source),
                keys: stageKeys)
            let applied = try replayed.apply(decoded, checkingBalances: false)
            let appliedAgain = try again.apply(decoded, checkingBalances: false)
            #expect(applied)
            #expect(!appliedAgain, "already applied by the stage")
        }
        #expect(replayed.allBalances.map(\.account) == ledger.allBalances.map(\.account))
        #expect(replayed.allBalances.map(\.money) == ledger.allBalances.map(\.money))
        #expect(replayed.accounts == ledger.accounts)
        #expect(replayed.transfers == ledger.transfers)
        #expect(replayed.requests == ledger.requests)
        for (user, intent) in [
            ("alice", "poor"), ("alice", "nobody"), ("bob", "r2"), ("alice", "paid"), ("bob", "r1"),
        ] {
            #expect(
                replayed.closedProposal(forIntent: intent, of: user)
                    == ledger.closedProposal(forIntent: intent, of: user))
        }
        #expect(replayed.closedProposal(forIntent: "poor", of: "alice") != nil)
    }
}
