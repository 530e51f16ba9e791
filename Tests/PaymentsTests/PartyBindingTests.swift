import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// Issue 28's parties, in the pure payments stage: only the voice service that asked may
/// answer, and a payment request is paid at most once. (The same attacks against the
/// running workers: `MoneySafetyV2Tests`.)
@Suite("The payments stage binds every party")
struct PartyBindingTests {
    static let otherVoiceKey = Array(repeating: UInt8(43), count: 32)
    /// Two voice services, each with a valid key of its own.
    static let voices = EventAuthenticator(keys: ["/voice/test": voiceKey, "/voice/other": otherVoiceKey])
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: Self.voices, stages: stageKeys)

    func run(_ event: EventEnvelope, _ ledger: inout Ledger) -> StageResult {
        let signature =
            PipelineSource.isInternal(event.source)
            ? stageKeys.signature(for: event) : Self.voices.signature(for: event)
        return stage.process(key: event.userID, value: event.encoded(), signature: signature, ledger: &ledger, now: t0)
    }

    /// A proposal as the confirm stage derives it from a request of `/voice/test`.
    func proposal(_ intent: Intent, user: String = "alice", intentID: String) -> (EventEnvelope, ConfirmationBinding) {
        var terms = termsFor(intent, user: user, intentID: intentID)
        terms.requestSource = "/voice/test"
        let binding = bindingKey.binding(terms)
        var event = EventEnvelope(
            id: "confirmed-\(intentID)", source: PipelineSource.confirm, type: IntentConfirmation.type, time: t0,
            dataSchema: IntentConfirmation.dataSchema, userID: user, conversationID: "c", intentID: intentID,
            payload: IntentConfirmation(
                turn: 1, intent: intent, code: .ready, proposedResponse: "OK?", binding: binding))
        try? RequestSource.stamp("/voice/test", on: &event)
        return (event, binding)
    }

    func answer(
        _ decision: ConfirmationAnswer.Decision, _ binding: ConfirmationBinding, from source: String,
        user: String = "alice", intentID: String
    ) -> EventEnvelope {
        EventEnvelope(
            id: "answer-\(intentID)-\(decision)-\(source)", source: source, type: ConfirmationAnswer.type, time: t0,
            dataSchema: ConfirmationAnswer.dataSchema, userID: user, conversationID: "c", intentID: intentID,
            payload: ConfirmationAnswer(decision: decision, binding: binding))
    }

    /// Bob asks Alice for 50 CNY and confirms it; the request is pending on Alice's side.
    func bobAsksAlice(_ ledger: inout Ledger) throws -> String {
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        let (asked, askBinding) = proposal(ask, user: "bob", intentID: "r1")
        _ = run(asked, &ledger)
        let created = run(answer(.confirmed, askBinding, from: "/voice/test", user: "bob", intentID: "r1"), &ledger)
        _ = withEffectsDelivered(created, stage, &ledger)
        return try #require(created.response?.paymentRequestID)
    }

    @Test("a copy of the deciding answer from another voice service than the one that asked is refused")
    func foreignCopyOfTheDecidingAnswer() throws {
        // SECURITY.md, attack 52: a copy of the answer that created a request, under its id but
        // from another voice service (its key genuine), was answered as a redelivery.
        var ledger = try fundedLedger()
        _ = try bobAsksAlice(&ledger)
        // The binding is not read for a copy of the deciding answer: its id decides.
        let anyBinding = ConfirmationBinding(digest: String(repeating: "0", count: 64), expiresAt: Timestamp(t0))
        var copy = answer(.confirmed, anyBinding, from: "/voice/other", user: "bob", intentID: "r1")
        copy.id = "answer-r1-confirmed-/voice/test"
        let refused = run(copy, &ledger)
        #expect(refused.rejected?.reason == .wrongProducer)
        #expect(refused.events.isEmpty)
        // The same copy from the service that asked is answered as a redelivery.
        copy.source = "/voice/test"
        #expect(run(copy, &ledger).rejected == nil)
    }

    @Test("another voice service's answer, with the right binding, neither pays nor releases the hold")
    func foreignAnswer() throws {
        var ledger = try fundedLedger()
        let (proposed, binding) = proposal(pay("100"), intentID: "i1")
        #expect(run(proposed, &ledger).ledgerKinds == [.hold])
        #expect(ledger.transfer(forIntent: "i1", of: "alice")?.requestSource == "/voice/test")
        for decision in [ConfirmationAnswer.Decision.confirmed, .declined] {
            let foreign = run(answer(decision, binding, from: "/voice/other", intentID: "i1"), &ledger)
            #expect(foreign.rejected?.reason == .wrongProducer, "\(decision)")
            #expect(foreign.rejected?.field == "$.source")
            #expect(foreign.events.isEmpty, "no ledger event, no response")
            #expect(ledger.transfer(forIntent: "i1", of: "alice")?.status == .held)
        }
        let own = run(answer(.confirmed, binding, from: "/voice/test", intentID: "i1"), &ledger)
        #expect(own.ledgerKinds == [.post])
        #expect(own.response?.code == .success)
    }

    @Test("a payment request proposal is answered only by the service that asked for it")
    func foreignRequestAnswer() throws {
        var ledger = try fundedLedger()
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        let (proposed, binding) = proposal(ask, user: "bob", intentID: "r1")
        #expect(run(proposed, &ledger).ledgerKinds == [.requestProposed])
        let foreign = run(answer(.confirmed, binding, from: "/voice/other", user: "bob", intentID: "r1"), &ledger)
        #expect(foreign.rejected?.reason == .wrongProducer)
        #expect(ledger.request(forIntent: "r1", of: "bob")?.status == .proposed)
        let own = run(answer(.confirmed, binding, from: "/voice/test", user: "bob", intentID: "r1"), &ledger)
        #expect(own.ledgerKinds == [.requestCreated])
    }

    @Test("a payment request is reserved by the first payment's hold: a second payment is refused with its own code")
    func requestPaidOnce() throws {
        var ledger = try fundedLedger()
        let requestID = try bobAsksAlice(&ledger)
        let payee = Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob")

        // Two payments of it, proposed one right after the other on Alice's partition.
        let (first, firstBinding) = proposal(pay("50", to: payee, requestID: requestID), intentID: "p1")
        let (second, _) = proposal(pay("50", to: payee, requestID: requestID), intentID: "p2")
        #expect(run(first, &ledger).ledgerKinds == [.hold])
        #expect(ledger.requests[requestID]?.reservedBy == Ledger.transferID(userID: "alice", intentID: "p1"))
        let refused = run(second, &ledger)
        #expect(refused.ledgerKinds == [.proposalClosed], "nothing held for the second")
        #expect(refused.response?.code == .failurePaymentRequestNotPayable)
        #expect(ledger.transfer(forIntent: "p2", of: "alice") == nil)

        // The first is declined: the request is open again, and a third payment may hold it.
        let declined = run(answer(.declined, firstBinding, from: "/voice/test", intentID: "p1"), &ledger)
        #expect(declined.ledgerKinds == [.void])
        #expect(ledger.requests[requestID]?.reservedBy == nil)
        let (third, thirdBinding) = proposal(pay("50", to: payee, requestID: requestID), intentID: "p3")
        #expect(run(third, &ledger).ledgerKinds == [.hold])
        let paid = run(answer(.confirmed, thirdBinding, from: "/voice/test", intentID: "p3"), &ledger)
        #expect(paid.ledgerKinds == [.post])
        #expect(ledger.requests[requestID]?.status == .paid)

        // Paid: a fourth payment is refused, and Alice paid 50 CNY once.
        let (fourth, _) = proposal(pay("50", to: payee, requestID: requestID), intentID: "p4")
        #expect(run(fourth, &ledger).response?.code == .failurePaymentRequestNotPayable)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("950")))
    }

    @Test("a request of another amount or payee cannot be paid by a payment naming it")
    func requestTermsChecked() throws {
        var ledger = try fundedLedger()
        let requestID = try bobAsksAlice(&ledger)
        let payee = Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob")
        let (less, _) = proposal(pay("49", to: payee, requestID: requestID), intentID: "p1")
        #expect(run(less, &ledger).response?.code == .failurePaymentRequestNotPayable)
        #expect(ledger.requests[requestID]?.reservedBy == nil)
    }
}
