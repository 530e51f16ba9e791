import Confirmation
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Payments
import Testing

@Suite("The confirm stage")
struct ConfirmStageTests {
    let stage = ConfirmStage(bindingKey: bindingKey, authenticator: stageKeys, unavailableServices: ["telegraph"])

    func resolved(_ intent: Intent, user: String = "alice") -> EventEnvelope {
        EventEnvelope(
            id: "resolved-1", source: PipelineSource.resolve, type: IntentResolutionReport.resolvedType, time: t0,
            dataSchema: IntentResolutionReport.resolvedDataSchema, userID: user, conversationID: "c",
            intentID: "i1", payload: IntentResolutionReport(turn: 1, intent: intent, parameters: []))
    }

    func confirm(_ intent: Intent, user: String = "alice") throws -> StageResult {
        let event = resolved(intent, user: user)
        return stage.process(
            key: user, value: event.encoded(), signature: signature(event), ledger: try fundedLedger())
    }

    @Test("a payment that can be done is ready and goes to the payments stage")
    func ready() throws {
        let result = try confirm(pay("100"))
        let events = result.events(to: .confirmations)
        #expect(events.count == 1)
        let confirmation = try #require(try events.first?.decodeData(as: IntentConfirmation.self))
        #expect(confirmation.code == .ready)
        // English (no locale on the request), with CLDR's format for yuan outside China.
        #expect(confirmation.proposedResponse == "Send CN¥100.00 to Bob (bob@example.com)?")
        #expect(confirmation.messageKey == .sendPaymentConfirm)
        #expect(result.events(to: .responses).isEmpty)
        // The user is asked, with the binding the payments stage will check, expiring in 120 s.
        let request = try #require(result.confirmationRequest)
        #expect(request.binding == confirmation.binding)
        #expect(request.binding == bindingFor(pay("100"), intentID: "i1"))
        #expect(request.amount == cny("100"))
        // The prompt names the account credited, and the binding covers it.
        #expect(request.counterpartyAccount == "bob@example.com")
        #expect(bindingKey.matches(request.binding, termsFor(pay("100"), intentID: "i1")))
        var swapped = termsFor(pay("100"), intentID: "i1")
        swapped.counterpartyAccount = "mallory@evil.example"
        #expect(!bindingKey.matches(request.binding, swapped))
    }

    @Test("redoing a resolved intent, at any later time, publishes the same bytes (expiry from the intent's time)")
    func deterministicRedo() throws {
        let first = try confirm(pay("100"))
        let again = try confirm(pay("100"))
        #expect(first.events.map { $0.event.encoded() } == again.events.map { $0.event.encoded() })
        let request = try #require(first.confirmationRequest)
        #expect(request.binding.expiresAt == Timestamp(t0.addingTimeInterval(120)))
    }

    @Test("resolved intents not signed by the resolve stage change nothing")
    func untrusted() throws {
        let event = resolved(pay("100"))
        var byConfirm = event
        byConfirm.source = PipelineSource.confirm
        let foreign = EventAuthenticator(keys: [PipelineSource.resolve: Array(repeating: 5, count: 32)])
        for (event, signature, reason) in [
            (event, nil, EventDecodingError.Reason.unauthenticated),
            (event, foreign.signature(for: event), .unauthenticated),
            (byConfirm, stageKeys.signature(for: byConfirm), .wrongProducer),
        ] as [(EventEnvelope, EventSignature?, EventDecodingError.Reason)] {
            let result = stage.process(
                key: "alice", value: event.encoded(), signature: signature, ledger: try fundedLedger())
            #expect(result.rejected?.reason == reason)
            #expect(result.events.isEmpty)
        }
    }

    /// Where a refusal is said: by the confirm stage (a message), or by the payments stage,
    /// which records it first (a payment: what it was refused on can move before a redo).
    enum SaidBy { case confirm, payments }

    @Test(
        "what cannot be done ends with SiriKit's response code",
        arguments: [
            ("alice", pay("1000.01"), ResponseCode.failureInsufficientFunds, nil, SaidBy.payments),
            ("dave", pay("1"), .failureNoBankAccount, nil, .payments),
            ("carol", pay("1"), .failureCredentialsUnverified, nil, .payments),
            // Amount rules: the resolve stage's AmountPolicy, with its reason names.
            ("alice", pay("0.001"), .failurePaymentsAmountBelowMinimum, "paymentsAmountBelowMinimum", .payments),
            ("alice", pay("50000.01"), .failurePaymentsAmountAboveMaximum, "paymentsAmountAboveMaximum", .payments),
            // The amount rules come before what the accounts say: the rule the user broke is said.
            ("dave", pay("50000.01"), .failurePaymentsAmountAboveMaximum, "paymentsAmountAboveMaximum", .payments),
            ("alice", pay("1.001"), .failure, "invalidAmountPrecision", .payments),
            (
                "alice",
                Intent.sendPayment(
                    SendPaymentIntent(
                        payee: bob, currencyAmount: CurrencyAmount(amount: DecimalAmount("1")!, currency: "JPY"))),
                .failurePaymentsCurrencyUnsupported, "paymentsCurrencyUnsupported", .payments
            ),
            (
                "alice", pay("1", to: Person(spoken: "Zed", handle: "zed@example.com")), .failure,
                "counterpartyNoAccount", .payments
            ),
            ("bob", pay("1"), .failure, "selfPayment", .payments),
            (
                "alice", pay("1", requestID: "pr-missing"), .failurePaymentRequestNotPayable,
                "paymentRequestNotPending", .payments
            ),
            (
                "alice",
                Intent.sendMessage(SendMessageIntent(recipients: [bob], content: "hi", serviceName: "Telegraph")),
                .failureMessageServiceNotAvailable, "serviceDown", .confirm
            ),
        ] as [(String, Intent, ResponseCode, String?, SaidBy)])
    func failures(_ user: String, _ intent: Intent, _ code: ResponseCode, _ reason: String?, _ saidBy: SaidBy) throws {
        let result = try confirm(intent, user: user)
        #expect(result.events(to: .confirmed).isEmpty)
        #expect(result.events(to: .prompts).isEmpty, "nobody is asked to confirm what cannot be done")
        guard saidBy == .payments else {
            #expect(result.events(to: .confirmations).isEmpty)
            #expect(result.response?.code == code)
            if let reason { #expect(result.response?.reason == reason) }
            return
        }
        #expect(result.response == nil)
        let refusal = try #require(result.events(to: .confirmations).first)
        let refused = try #require(result.refusal)
        #expect(refused.code == code)
        #expect(refused.binding == nil)
        #expect(refused.ledgerVersion == (try fundedLedger()).version(of: user))
        if let reason { #expect(refused.reason == reason) }
        // The payments stage records it and says it, with a sentence of its own for each.
        var ledger = try fundedLedger()
        let payments = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)
        let closed = payments.process(
            key: user, value: refusal.encoded(), signature: signature(refusal), ledger: &ledger, now: t0)
        #expect(closed.ledgerKinds == [.proposalClosed])
        let response = try #require(closed.response)
        #expect(response.code == code)
        if code == .failure { #expect(response.reason == reason) }
        #expect(response.messageKey != nil && response.messageKey != .nothingSent, "\(response.message)")
        #expect(ledger.closedProposal(forIntent: "i1", of: user) != nil)
    }

    @Test("a refusal reaches the payments stage late: still recorded and said (it asks for no money)")
    func lateRefusal() throws {
        let refusal = try #require(try confirm(pay("1000.01")).events(to: .confirmations).first)
        var ledger = try fundedLedger()
        let payments = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)
        let anHourLater = t0.addingTimeInterval(3600)
        let closed = payments.process(
            key: "alice", value: refusal.encoded(), signature: signature(refusal), ledger: &ledger, now: anHourLater)
        #expect(closed.rejected == nil)
        #expect(closed.response?.code == .failureInsufficientFunds)
        // A proposal as late is refused as stale: it would ask for money nobody can confirm in time.
        let proposal = try #require(try confirm(pay("100")).events(to: .confirmations).first)
        let stale = payments.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: anHourLater)
        #expect(stale.rejected?.reason == .stale)
    }

    @Test("messaging intents go to the handle stage")
    func messaging() throws {
        let result = try confirm(.sendMessage(SendMessageIntent(recipients: [bob], content: "hi")))
        #expect(result.events(to: .confirmed).count == 1)
    }
}

@Suite("The payments stage: always confirmed, never twice")
struct PaymentsStageTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    /// The event through the stage, signed by its source unless `unsigned` or a signature is given.
    func run(
        _ event: EventEnvelope, signature given: EventSignature? = nil, unsigned: Bool = false, _ ledger: inout Ledger,
        at now: Date = t0
    ) -> StageResult {
        let signed = unsigned ? nil : given ?? signature(event)
        return stage.process(key: event.userID, value: event.encoded(), signature: signed, ledger: &ledger, now: now)
    }

    /// Proposes a payment and returns the binding the user is asked to confirm.
    func propose(_ amount: String, _ ledger: inout Ledger, intentID: String = "i1") throws -> ConfirmationBinding {
        let result = run(confirmedEvent(pay(amount), intentID: intentID), &ledger)
        #expect(result.ledgerKinds == [.hold])
        #expect(result.events(to: .prompts).isEmpty, "the confirm stage asks, not the payments stage")
        return bindingFor(pay(amount), intentID: intentID)
    }

    @Test(
        "confirmed with the matching binding: the money moves once, and a redelivered answer only repeats the response")
    func confirmed() throws {
        var ledger = try fundedLedger()
        let binding = try propose("100", &ledger)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("900")))
        let (answer, signature) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        let result = run(answer, signature: signature, &ledger, at: t0.addingTimeInterval(30))
        #expect(result.ledgerKinds == [.post])
        #expect(result.effectKinds == [.credit])
        #expect(result.effects.first?.userID == "bob", "sent to Bob's partition")
        #expect(result.response?.code == .success)
        #expect(ledger.balance(Ledger.clearing, "CNY") == Money(cny("100")), "on its way to Bob")
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
        // Bob's member records the credit, once.
        let credited = withEffectsDelivered(result, stage, &ledger)
        #expect(credited.ledgerKinds == [.post, .credit])
        #expect(credited.events(to: .ledger).last?.userID == "bob")
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("100")))
        #expect(ledger.balance(Ledger.clearing, "CNY") == Money.zero("CNY"))
        #expect(
            withEffectsDelivered(result, stage, &ledger).ledgerKinds == [.post], "a redelivered effect changes nothing")
        let again = run(answer, signature: signature, &ledger, at: t0.addingTimeInterval(31))
        #expect(again.ledgerKinds.isEmpty)
        #expect(again.events(to: .responses).map(\.id) == result.events(to: .responses).map(\.id))
        // A crash may have come between the post and its effect: the redelivered answer sends the
        // same credit again, byte for byte, and Bob's member records it only once.
        #expect(again.effects.map { $0.encoded() } == result.effects.map { $0.encoded() })
        #expect(withEffectsDelivered(again, stage, &ledger).ledgerKinds.isEmpty)
        // The confirm result redelivered does not hold again either.
        #expect(run(confirmedEvent(pay("100"), intentID: "i1"), &ledger).ledgerKinds.isEmpty)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("100")))
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("900")))
    }

    @Test(
        "declined, mismatched or late: nothing moves, the hold is released, the response says why",
        arguments: ["declined", "otherAmount", "late", "otherIntentsBinding"])
    func refused(_ variant: String) throws {
        var ledger = try fundedLedger()
        let binding = try propose("100", &ledger)
        let otherBinding = try propose("5", &ledger, intentID: "i2")
        var answer = answerEvent(.confirmed, binding: binding, intentID: "i1")
        var now = t0.addingTimeInterval(10)
        var reason = "declinedByUser"
        switch variant {
        case "declined":
            answer = answerEvent(.declined, binding: binding, intentID: "i1")
        case "otherAmount":
            answer = answerEvent(
                .confirmed,
                binding: ConfirmationBinding(digest: "00" + binding.digest.dropFirst(2), expiresAt: binding.expiresAt),
                intentID: "i1")
            reason = "confirmationMismatch"
        case "otherIntentsBinding":
            answer = answerEvent(.confirmed, binding: otherBinding, intentID: "i1")
            reason = "confirmationMismatch"
        default:
            now = t0.addingTimeInterval(121)
            reason = "confirmationExpired"
        }
        let result = run(answer.0, signature: answer.1, &ledger, at: now)
        #expect(result.ledgerKinds == [.void])
        #expect(result.response?.code == .failure)
        #expect(result.response?.reason == reason)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("995")))
        // A later "confirmed" for the released hold moves nothing.
        let late = answerEvent(.confirmed, binding: binding, intentID: "i1", id: "late")
        #expect(run(late.0, signature: late.1, &ledger, at: t0.addingTimeInterval(20)).ledgerKinds.isEmpty)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
    }

    @Test("an unanswered hold expires in the sweep and is released")
    func sweep() throws {
        var ledger = try fundedLedger()
        _ = try propose("100", &ledger)
        #expect(stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(60), owns: { _ in true }).events.isEmpty)
        let swept = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(121), owns: { _ in true })
        #expect(swept.ledgerKinds == [.void])
        #expect(swept.response?.reason == "confirmationExpired")
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
    }

    @Test(
        "an expiry restored without knowing whether it was answered is answered again, the same bytes, once; a late answer's void is not"
    )
    func restoredExpiryAnsweredAgain() throws {
        var ledger = try fundedLedger()
        _ = try propose("100", &ledger)
        var before = ledger
        let swept = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(121), owns: { _ in true })
        let answer = try #require(swept.events(to: .responses).first)
        #expect(
            stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(122), owns: { _ in true }).events.isEmpty,
            "the member that swept answered it")
        // A member that restored the void from the topic (its sweep's member died before the answer).
        for envelope in swept.events(to: .ledger) { try before.apply(LedgerEvent.decode(from: envelope)) }
        let again = stage.sweep(ledger: &before, now: t0.addingTimeInterval(125), owns: { _ in true })
        #expect(again.events.map(\.0) == [.responses])
        #expect(again.events.map { $0.1.encoded() } == [answer.encoded()], "the same response, byte for byte")
        #expect(stage.sweep(ledger: &before, now: t0.addingTimeInterval(126), owns: { _ in true }).events.isEmpty)
        // Or from a snapshot; only for users it owns, and not after the window.
        var fromSnapshot = try Ledger(snapshotBytes: ledger.snapshotBytes())
        #expect(
            stage.sweep(ledger: &fromSnapshot, now: t0.addingTimeInterval(125), owns: { _ in false }).events.isEmpty)
        fromSnapshot = try Ledger(snapshotBytes: ledger.snapshotBytes())
        #expect(
            stage.sweep(ledger: &fromSnapshot, now: t0.addingTimeInterval(125), owns: { _ in true }).events.map {
                $0.1.encoded()
            } == [answer.encoded()])
        fromSnapshot = try Ledger(snapshotBytes: ledger.snapshotBytes())
        let late = t0.addingTimeInterval(121 + 601)
        #expect(stage.sweep(ledger: &fromSnapshot, now: late, owns: { _ in true }).events.isEmpty, "too old")
        // A void decided by an answer that came too late is answered by that answer's redelivery.
        var answered = try fundedLedger()
        let binding = try propose("100", &answered)
        let (tooLate, signature) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        #expect(run(tooLate, signature: signature, &answered, at: t0.addingTimeInterval(121)).ledgerKinds == [.void])
        var restored = try Ledger(snapshotBytes: answered.snapshotBytes())
        #expect(stage.sweep(ledger: &restored, now: t0.addingTimeInterval(125), owns: { _ in true }).events.isEmpty)
    }

    @Test("user B's answer cannot confirm user A's intent, and unsigned or forged answers are dead-lettered")
    func otherUsersAndForgeries() throws {
        var ledger = try fundedLedger()
        let binding = try propose("100", &ledger)
        let fromBob = answerEvent(.confirmed, binding: binding, user: "bob", intentID: "i1")
        let result = run(fromBob.0, signature: fromBob.1, &ledger)
        #expect(result.rejected?.reason == .notPending, "Bob has no such intent: dead-lettered")
        #expect(result.ledgerKinds.isEmpty && result.response == nil, "nothing recorded, nothing answered")
        #expect(ledger.transfer(forIntent: "i1", of: "alice")?.status == .held)

        let (answer, signature) = answerEvent(.confirmed, binding: binding, intentID: "i1")
        #expect(run(answer, unsigned: true, &ledger).rejected?.reason == .unauthenticated)
        var forged = answer
        forged.id = "forged"
        #expect(run(forged, signature: signature, &ledger).rejected?.reason == .unauthenticated)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
    }

    @Test("a payment request: confirmed by the requester, pending for the payer, paid by a payment that references it")
    func paymentRequest() throws {
        var ledger = try fundedLedger()
        // Bob asks Alice for 50 CNY.
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        let proposed = run(confirmedEvent(ask, user: "bob", intentID: "r1"), &ledger)
        #expect(proposed.ledgerKinds == [.requestProposed])
        let binding = bindingFor(ask, user: "bob", intentID: "r1")
        let (answer, signature) = answerEvent(.confirmed, binding: binding, user: "bob", intentID: "r1")
        let created = run(answer, signature: signature, &ledger)
        #expect(created.ledgerKinds == [.requestCreated])
        #expect(created.effectKinds == [.requestReceived])
        #expect(created.effects.first?.userID == "alice", "the payer's side, on the payer's partition")
        let createdAgain = run(answer, signature: signature, &ledger)
        #expect(createdAgain.ledgerKinds.isEmpty)
        #expect(createdAgain.effects.map { $0.encoded() } == created.effects.map { $0.encoded() })
        let requestID = try #require(created.response?.paymentRequestID)
        #expect(ledger.requests[requestID]?.status == .pending)
        #expect(ledger.requests[requestID]?.payer == "alice")

        // Only the payer can decline it; a decline by someone else is dead-lettered.
        func decline(by user: String) -> StageResult {
            let event = EventEnvelope(
                id: "decline-\(user)", source: "/voice/test", type: PaymentRequestDecline.type, time: t0,
                dataSchema: PaymentRequestDecline.dataSchema, userID: user, conversationID: "c",
                payload: PaymentRequestDecline(paymentRequestID: requestID))
            return run(event, signature: authenticator.signature(for: event), &ledger)
        }
        #expect(decline(by: "carol").rejected?.reason == .wrongUser)
        #expect(ledger.requests[requestID]?.status == .pending)

        // Alice pays it.
        let payment = pay(
            "50", to: Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob"), requestID: requestID)
        let held = run(confirmedEvent(payment, intentID: "p1"), &ledger)
        #expect(held.ledgerKinds == [.hold])
        let payBinding = bindingFor(payment, intentID: "p1")
        let payAnswer = answerEvent(.confirmed, binding: payBinding, intentID: "p1")
        let paid = run(payAnswer.0, signature: payAnswer.1, &ledger)
        #expect(paid.ledgerKinds == [.post])
        #expect(paid.effectKinds == [.credit, .requestPaid])
        #expect(paid.effects.map(\.userID) == ["bob", "bob"])
        #expect(ledger.requests[requestID]?.status == .paid)
        #expect(withEffectsDelivered(paid, stage, &ledger).ledgerKinds == [.post, .credit, .requestPaid])
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("50")))
        // A paid request can no longer be declined.
        #expect(decline(by: "alice").ledgerKinds.isEmpty)
        #expect(ledger.requests[requestID]?.status == .paid)
    }

    @Test("effects are recorded only from the payments stage, only of effect kinds, only for the user they are sent to")
    func forgedEffects() throws {
        var ledger = try fundedLedger()
        func credit(_ user: String, id: String = "credit-x") -> LedgerEvent {
            LedgerEvent(
                id: id, kind: .credit, userID: user, transferID: "t-x",
                entries: LedgerEntry.move(cny("500"), from: Ledger.clearing, to: Ledger.available(user)),
                counterpartyUserID: "alice", amount: cny("500"))
        }
        let honest = credit("bob").envelope(source: PipelineSource.payments, time: t0)
        // Signed with another key than the payments stage's, or by another stage: not its effect.
        let forger = EventAuthenticator(keys: [PipelineSource.payments: Array(repeating: 0xEE, count: 32)])
        #expect(run(honest, signature: forger.signature(for: honest), &ledger).rejected?.reason == .unauthenticated)
        let byConfirm = credit("bob").envelope(source: PipelineSource.confirm, time: t0)
        #expect(run(byConfirm, &ledger).rejected?.reason == .wrongProducer)
        // Keyed by Bob, crediting Mallory.
        var misdirected = credit("mallory").envelope(source: PipelineSource.payments, time: t0)
        misdirected.userID = "bob"
        #expect(run(misdirected, &ledger).rejected?.reason == .wrongUser)
        // A hold is no effect: one member never reserves another user's money.
        let hold = LedgerEvent(
            id: "hold-x", kind: .hold, userID: "alice", intentID: "x", transferID: "t-x",
            entries: LedgerEntry.move(cny("5"), from: Ledger.available("alice"), to: Ledger.held("alice")),
            counterpartyUserID: "bob", amount: cny("5"))
        #expect(
            run(hold.envelope(source: PipelineSource.payments, time: t0), &ledger).rejected?.reason == .schemaInvalid)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
        #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
        // The honest one is recorded once.
        #expect(run(honest, &ledger).ledgerKinds == [.credit])
        #expect(run(honest, &ledger).ledgerKinds.isEmpty)
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money(cny("500")))
    }

    @Test("the payer declines a pending request: recorded, nothing moves")
    func declineRequest() throws {
        var ledger = try fundedLedger()
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        _ = run(confirmedEvent(ask, user: "bob", intentID: "r1"), &ledger)
        let binding = bindingFor(ask, user: "bob", intentID: "r1")
        let answer = answerEvent(.confirmed, binding: binding, user: "bob", intentID: "r1")
        let requestID = try #require(run(answer.0, signature: answer.1, &ledger).response?.paymentRequestID)
        let event = EventEnvelope(
            id: "decline", source: "/voice/test", type: PaymentRequestDecline.type, time: t0,
            dataSchema: PaymentRequestDecline.dataSchema, userID: "alice", conversationID: "c",
            payload: PaymentRequestDecline(paymentRequestID: requestID))
        #expect(run(event, unsigned: true, &ledger).rejected?.reason == .unauthenticated)
        let declined = run(event, signature: authenticator.signature(for: event), &ledger)
        #expect(declined.ledgerKinds == [.requestDeclined])
        #expect(declined.events(to: .ledger).first?.userID == "alice", "recorded on the payer's partition")
        #expect(declined.effectKinds == [.requestDeclined])
        #expect(declined.effects.first?.userID == "bob", "and sent to the requester's")
        let again = run(event, signature: authenticator.signature(for: event), &ledger)
        #expect(again.ledgerKinds.isEmpty)
        #expect(again.effects.map { $0.encoded() } == declined.effects.map { $0.encoded() }, "sent again, the same")
        // Another decline, later: nothing is sent (its effect would take the first's id with
        // another decidedBy and time).
        var other = event
        other.id = "decline-again"
        other.time = t0.addingTimeInterval(30)
        let second = run(other, signature: authenticator.signature(for: other), &ledger, at: other.time)
        #expect(second.events.isEmpty)
        #expect(withEffectsDelivered(declined, stage, &ledger).ledgerKinds == [.requestDeclined, .requestDeclined])
        #expect(ledger.requests[requestID]?.status == .declined)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
    }

    /// Bob asks Alice for 50 CNY, confirms it, and the payer's side records it; returns the
    /// request's id, the answer that created it and what that answer published.
    func createdRequest(_ ledger: inout Ledger) throws -> (
        requestID: String, answer: EventEnvelope, created: StageResult
    ) {
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("50")))
        _ = run(confirmedEvent(ask, user: "bob", intentID: "r1"), &ledger)
        let (answer, signature) = answerEvent(
            .confirmed, binding: bindingFor(ask, user: "bob", intentID: "r1"), user: "bob", intentID: "r1")
        let created = run(answer, signature: signature, &ledger)
        _ = withEffectsDelivered(created, stage, &ledger)
        return (try #require(created.response?.paymentRequestID), answer, created)
    }

    func decline(_ requestID: String, _ ledger: inout Ledger) -> StageResult {
        let event = EventEnvelope(
            id: "decline-\(requestID)", source: "/voice/test", type: PaymentRequestDecline.type, time: t0,
            dataSchema: PaymentRequestDecline.dataSchema, userID: "alice", conversationID: "c",
            payload: PaymentRequestDecline(paymentRequestID: requestID))
        return run(event, &ledger)
    }

    @Test("the answer that created a request, re-signed later, is answered as first, and never reopens it once ended")
    func requestAnswerCopiedLater() throws {
        // SECURITY.md, attack 52: the copy's effect was dated by the copy, so the payer's member,
        // which no longer remembered the first (a day after the request ended), opened it again.
        var ledger = try fundedLedger()
        let (requestID, answer, created) = try createdRequest(&ledger)
        var later = answer
        later.time = t0.addingTimeInterval(26 * 3600)
        let copied = run(later, &ledger, at: later.time)
        #expect(copied.effectKinds == [.requestReceived])
        // The same effect and response, byte for byte: dated when the request was created.
        #expect(copied.ledgerKinds.isEmpty)
        #expect(copied.effects.map { $0.encoded() } == created.effects.map { $0.encoded() })
        #expect(
            copied.events(to: .responses).map { $0.encoded() } == created.events(to: .responses).map { $0.encoded() })
        // (From another voice service than the one that asked: PartyBindingTests/foreignCopyOfTheDecidingAnswer.)
        // Declined: the copy still gets its first answer, and no longer goes to the payer.
        #expect(withEffectsDelivered(decline(requestID, &ledger), stage, &ledger).ledgerKinds.count == 2)
        #expect(ledger.requests[requestID]?.status == .declined)
        let afterDecline = run(later, &ledger, at: later.time)
        #expect(afterDecline.effects.isEmpty)
        #expect(
            afterDecline.events(to: .responses).map { $0.encoded() }
                == created.events(to: .responses).map { $0.encoded() })
        #expect(ledger.requests[requestID]?.status == .declined)
    }

    @Test("a request a payment holds cannot be declined until that payment ends")
    func declineWhileBeingPaid() throws {
        // SECURITY.md, attack 53: declined while held, the payment still posted, and the
        // requester was paid a request that read "declined" on both sides.
        var ledger = try fundedLedger()
        let (requestID, _, _) = try createdRequest(&ledger)
        let payment = pay(
            "50", to: Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob"), requestID: requestID)
        #expect(run(confirmedEvent(payment, intentID: "p1"), &ledger).ledgerKinds == [.hold])
        let refused = decline(requestID, &ledger)
        #expect(refused.rejected?.reason == .notPending)
        #expect(refused.events(to: .ledger).isEmpty && refused.effects.isEmpty)
        let (answer, signature) = answerEvent(.confirmed, binding: bindingFor(payment, intentID: "p1"), intentID: "p1")
        let paid = run(answer, signature: signature, &ledger)
        #expect(withEffectsDelivered(paid, stage, &ledger).ledgerKinds == [.post, .credit, .requestPaid])
        #expect(ledger.requests[requestID]?.status == .paid)
        // Paid: a decline now changes nothing.
        #expect(decline(requestID, &ledger).ledgerKinds.isEmpty)
        #expect(ledger.requests[requestID]?.status == .paid)
    }

    @Test("one user has at most so many payment requests open to one payer; one more is refused until one ends")
    func openRequestsBounded() throws {
        // SECURITY.md, attack 54: a pending request never expires and only its payer can end it.
        var ledger = try fundedLedger()
        let alice = Person(spoken: "Alice", handle: "+15550100", contactID: "c-alice", displayName: "Alice")
        let ask = Intent.requestPayment(RequestPaymentIntent(payer: alice, currencyAmount: cny("1")))
        for index in 0..<Ledger.maximumOpenRequestsToOnePayer {
            #expect(
                run(confirmedEvent(ask, user: "bob", intentID: "ask-\(index)"), &ledger).ledgerKinds == [
                    .requestProposed
                ])
        }
        // One created and pending with Alice counts as open too.
        let created = answerEvent(
            .confirmed, binding: bindingFor(ask, user: "bob", intentID: "ask-0"), user: "bob", intentID: "ask-0")
        #expect(run(created.0, signature: created.1, &ledger).ledgerKinds == [.requestCreated])
        let refused = run(confirmedEvent(ask, user: "bob", intentID: "one-more"), &ledger)
        #expect(!refused.ledgerKinds.contains(.requestProposed))
        #expect(refused.response?.reason == "tooManyOpenRequests")
        #expect(refused.response?.code == .failure)
        // Said in words of its own, not "nothing sent (tooManyOpenRequests)".
        #expect(refused.response?.messageKey == .tooManyOpenRequests)
        // To another payer, Bob may still ask; and another user's requests to Alice are not his.
        let carol = Person(spoken: "Carol", handle: "carol@example.com", contactID: "c-carol", displayName: "Carol")
        let toCarol = Intent.requestPayment(RequestPaymentIntent(payer: carol, currencyAmount: cny("1")))
        #expect(
            run(confirmedEvent(toCarol, user: "bob", intentID: "to-carol"), &ledger).ledgerKinds == [.requestProposed])
        let bob = Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob", displayName: "Bob")
        let fromAlice = Intent.requestPayment(RequestPaymentIntent(payer: bob, currencyAmount: cny("1")))
        #expect(run(confirmedEvent(fromAlice, intentID: "alice-asks"), &ledger).ledgerKinds == [.requestProposed])
        // The proposals expire in the sweep; the pending one stays open: one more to Alice is allowed.
        _ = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(3600)) { _ in true }
        #expect(run(confirmedEvent(ask, user: "bob", intentID: "later"), &ledger).ledgerKinds == [.requestProposed])
    }

    @Test("an answer under the id the expiry sweep derives is refused, and the sweep answers its expiry once")
    func answerUnderTheExpiryID() throws {
        // From the request review (session 23): the id is derivable; an answer under it that came
        // after the expiry and before the sweep was recorded as the sweep's decision, and the
        // sweep then answered the intent a second time.
        var ledger = try fundedLedger()
        let binding = try propose("10", &ledger)
        let late = t0.addingTimeInterval(3600)
        let (answer, _) = answerEvent(
            .confirmed, binding: binding, intentID: "i1", id: Ledger.expiryID(userID: "alice", intentID: "i1"),
            time: late)
        let refused = run(answer, &ledger, at: late)
        #expect(refused.rejected?.reason == .schemaInvalid)
        #expect(refused.rejected?.field == "$.id")
        #expect(ledger.transfer(forIntent: "i1", of: "alice")?.status == .held, "the answer decided nothing")
        // The sweep voids it and answers once; a later sweep answers nothing more.
        let swept = stage.sweep(ledger: &ledger, now: late) { _ in true }
        #expect(swept.ledgerKinds == [.void])
        #expect(swept.events(to: .responses).count == 1)
        let again = stage.sweep(ledger: &ledger, now: late.addingTimeInterval(1)) { _ in true }
        #expect(again.events(to: .responses).isEmpty)
        // After the sweep, the same id is not the sweep's decision redelivered either.
        let after = run(answer, &ledger, at: late.addingTimeInterval(2))
        #expect(after.rejected?.field == "$.id")
        #expect(after.events(to: .responses).isEmpty)
    }

    @Test("replaying the ledger events a run wrote rebuilds the same balances")
    func replay() throws {
        var ledger = try fundedLedger()
        var written: [LedgerEvent] = []
        let first = run(confirmedEvent(pay("100"), intentID: "i1"), &ledger)
        let binding = bindingFor(pay("100"), intentID: "i1")
        let answer = answerEvent(.confirmed, binding: binding, intentID: "i1")
        let second = run(answer.0, signature: answer.1, &ledger)
        let fourth = run(confirmedEvent(pay("7"), intentID: "i2"), &ledger)
        let third = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(500), owns: { _ in true })
        for result in [first, second, fourth, third] {
            written += try result.events(to: .ledger).map { try $0.decodeData(as: LedgerEvent.self) }
        }
        #expect(written.map(\.kind) == [.hold, .post, .hold, .void])
        var rebuilt = try fundedLedger()
        for event in written { #expect(try rebuilt.apply(event)) }
        #expect(rebuilt.allBalances.map(\.money) == ledger.allBalances.map(\.money))
        #expect(rebuilt.allBalances.map(\.account) == ledger.allBalances.map(\.account))
        #expect(rebuilt.transfers[Ledger.transferID(userID: "alice", intentID: "i1")]?.status == .posted)
        #expect(rebuilt.transfers[Ledger.transferID(userID: "alice", intentID: "i2")]?.status == .voided)
    }
}
