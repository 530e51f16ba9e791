import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// The payments stage against the attacks of issue 16, without a broker
/// (the same attacks run against the real broker in IntentWorkersTests).
@Suite("Money safety: forged proposals, swapped accounts, one final response")
struct MoneySafetyTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    func run(_ event: EventEnvelope, signature: EventSignature?, _ ledger: inout Ledger, at now: Date = t0)
        -> StageResult
    {
        withEffectsDelivered(
            stage.process(key: event.userID, value: event.encoded(), signature: signature, ledger: &ledger, now: now),
            stage, &ledger, now: now)
    }

    /// A proposal for 900 CNY to Bob that expires in 2099, as an attacker would write it.
    func forgedProposal(binding: ConfirmationBinding? = nil, source: String = PipelineSource.confirm) -> EventEnvelope {
        let intent = pay("900")
        var event = confirmedEvent(intent, intentID: "forged")
        event.source = source
        let farFuture = Timestamp(Date(timeIntervalSince1970: 4_070_908_800))
        var terms = termsFor(intent, intentID: "forged")
        terms.expiresAt = farFuture
        let confirmation = IntentConfirmation(
            turn: 1, intent: intent, code: .ready, proposedResponse: "OK?",
            binding: binding ?? bindingKey.binding(terms))
        event.data = JSONValue(encoding: confirmation)
        return event
    }

    @Test("a proposal not signed by the confirm stage places no hold")
    func forgedProposals() throws {
        var ledger = try fundedLedger()
        let event = forgedProposal()
        let byResolve = forgedProposal(source: PipelineSource.resolve)
        let otherKeys = EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 77, count: 32)])
        for (event, signature, reason) in [
            (event, nil, EventDecodingError.Reason.unauthenticated),
            (event, otherKeys.signature(for: event), .unauthenticated),
            (byResolve, stageKeys.signature(for: byResolve), .wrongProducer),
        ] as [(EventEnvelope, EventSignature?, EventDecodingError.Reason)] {
            let result = run(event, signature: signature, &ledger)
            #expect(result.rejected?.reason == reason)
            #expect(result.events.isEmpty)
        }
        #expect(ledger.transfer(forIntent: "forged", of: "alice") == nil)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
    }

    @Test("a proposal asking for more than the maximum confirmation window, or bound to other terms, is refused")
    func expiryAndBindingRules() throws {
        var ledger = try fundedLedger()
        // Signed by the confirm stage's key and bound with the real binding key, but expiring in 2099.
        let long = forgedProposal()
        let refused = run(long, signature: stageKeys.signature(for: long), &ledger)
        #expect(refused.ledgerKinds == [.proposalClosed])
        #expect(refused.response?.reason == "expiryTooLong")
        // A binding that belongs to another amount.
        var mismatched = confirmedEvent(pay("100"), intentID: "m")
        mismatched.data = JSONValue(
            encoding: IntentConfirmation(
                turn: 1, intent: pay("100"), code: .ready, proposedResponse: "OK?",
                binding: bindingFor(pay("1"), intentID: "m")))
        let result = run(mismatched, signature: stageKeys.signature(for: mismatched), &ledger)
        #expect(result.response?.reason == "bindingMismatch")
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
    }

    /// What the confirm stage refuses, written as a ready proposal with the confirm stage's key
    /// and the real binding (a holder of that key, or a confirm member whose rules differ during
    /// a rollout): the payments stage checks the rules again with its own configuration and the
    /// accounts as its ledger knows them, closes the proposal, and holds nothing.
    @Test(
        "a signed proposal the confirm stage would have refused is closed: the amount rules, the payer's account and its verification",
        arguments: [
            // The payments stage's own rules: CNY from 1 to 50, whole yuan.
            ("alice", pay("60"), ResponseCode.failurePaymentsAmountAboveMaximum, nil as String?),
            ("alice", pay("0.5"), .failurePaymentsAmountBelowMinimum, nil),
            ("alice", pay("1.5"), .failure, "invalidAmountPrecision"),
            (
                "alice",
                Intent.sendPayment(
                    SendPaymentIntent(
                        payee: bob, currencyAmount: CurrencyAmount(amount: DecimalAmount("5")!, currency: "EUR"))),
                .failurePaymentsCurrencyUnsupported, nil
            ),
            // Carol's account is not verified (funded below, so only that rule stops the hold).
            ("carol", pay("10"), .failureCredentialsUnverified, nil),
            ("dave", pay("10"), .failureNoBankAccount, nil),
            // Bob paying himself: said as confirm says it (before: "counterpartyNoAccount").
            ("bob", pay("10"), .failure, "selfPayment"),
        ] as [(String, Intent, ResponseCode, String?)])
    func rulesCheckedAgain(_ user: String, _ intent: Intent, _ code: ResponseCode, _ reason: String?) throws {
        let strict = PaymentsStage(
            bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys,
            amounts: try AmountPolicy.parse("CNY:1:50"))
        var ledger = try fundedLedger()
        try ledger.apply(LedgerEvent.deposit(id: "deposit-carol", userID: "carol", amount: cny("1000")))
        try ledger.apply(
            LedgerEvent.deposit(
                id: "deposit-alice-eur", userID: "alice",
                amount: CurrencyAmount(amount: DecimalAmount("100")!, currency: "EUR")))
        let proposal = confirmedEvent(intent, user: user, intentID: "checked-again")
        let result = strict.process(
            key: user, value: proposal.encoded(), signature: stageKeys.signature(for: proposal), ledger: &ledger,
            now: t0)
        #expect(result.ledgerKinds == [.proposalClosed])
        #expect(result.response?.code == code)
        if let reason { #expect(result.response?.reason == reason) }
        #expect(ledger.transfer(forIntent: "checked-again", of: user) == nil, "nothing held")
        // The user's "yes" finds nothing pending.
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(intent, user: user, intentID: "checked-again"), user: user,
            intentID: "checked-again")
        let answered = strict.process(
            key: user, value: answer.encoded(), signature: answerSignature, ledger: &ledger, now: t0)
        #expect(answered.rejected?.reason == .notPending)
        #expect(answered.events.isEmpty)
    }

    /// A proposal to pay a request that is no longer open, from a payer whose balance has also
    /// fallen below the amount: the confirm stage says the request is not open (it checks that
    /// first), and so does the payments stage, which used to say "not enough money".
    @Test("a payment of a request no longer open is closed as that, before the balance is looked at")
    func requestNotOpenBeforeBalance() throws {
        var ledger = try fundedLedger()
        // No request "pr-gone" on Alice's side, and 1,000 CNY is less than the 5,000 asked.
        let intent = pay("5000", requestID: "pr-gone")
        let proposal = confirmedEvent(intent, intentID: "pays-gone")
        let result = run(proposal, signature: stageKeys.signature(for: proposal), &ledger)
        #expect(result.ledgerKinds == [.proposalClosed])
        #expect(result.response?.code == .failurePaymentRequestNotPayable)
        #expect(ledger.transfer(forIntent: "pays-gone", of: "alice") == nil, "nothing held")
        // The ledger's own rule says the same of that request.
        #expect(
            ledger.whyNotPayable(
                "pr-gone", payer: "alice", payee: "bob", money: Money(cny("5000")),
                transferID: Ledger.transferID(userID: "alice", intentID: "pays-gone"))
                == "no such request for this payer")
    }

    @Test("a confirmed payment whose bound account no longer belongs to the payee is released, not paid")
    func accountMovedAway() throws {
        var ledger = try fundedLedger()
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        #expect(run(proposal, signature: signature(proposal), &ledger).ledgerKinds == [.hold])
        // Bob closes his account, releasing the handle, and Mallory opens one with it, after
        // Alice confirmed "Bob (bob@example.com)".
        try ledger.apply(LedgerEvent.closing(userID: "bob", version: 2))
        try ledger.apply(LedgerEvent.opening(userID: "mallory", handles: ["BOB@example.com"])[0])
        #expect(ledger.account(handle: "bob@example.com")?.userID == "mallory")
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(pay("100"), intentID: "i1"), intentID: "i1")
        let result = run(answer, signature: answerSignature, &ledger)
        #expect(result.ledgerKinds == [.void])
        #expect(result.response?.reason == "payeeAccountChanged")
        #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
    }

    @Test("an opening that collides with a held handle changes no owner: the confirmed payment reaches the payee")
    func collidingOpeningTakesNothing() throws {
        var ledger = try fundedLedger()
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        #expect(run(proposal, signature: signature(proposal), &ledger).ledgerKinds == [.hold])
        // Mallory's opening claims Bob's handle (case and punctuation aside) while Bob holds it.
        try ledger.apply(LedgerEvent.opening(userID: "mallory", handles: [" BOB@Example.com "])[0])
        #expect(ledger.account(handle: "bob@example.com")?.userID == "bob")
        #expect(ledger.accounts["mallory"] == nil)
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(pay("100"), intentID: "i1"), intentID: "i1")
        #expect(run(answer, signature: answerSignature, &ledger).ledgerKinds == [.post, .credit])
        #expect(ledger.transfers[Ledger.transferID(userID: "alice", intentID: "i1")]?.status == .posted)
    }

    @Test("the ledger refuses a post that pays another account or another amount than the hold")
    func strictPost() throws {
        var ledger = try fundedLedger()
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        _ = run(proposal, signature: signature(proposal), &ledger)
        let transferID = Ledger.transferID(userID: "alice", intentID: "i1")
        for (account, amount) in [(Ledger.available("carol"), cny("100")), (Ledger.available("bob"), cny("90"))] {
            let post = LedgerEvent(
                id: "post-\(account)-\(amount.amount)", kind: .post, userID: "alice", intentID: "i1",
                transferID: transferID,
                entries: [
                    LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: amount),
                    LedgerEntry(account: account, side: .credit, amount: amount),
                ])
            #expect(throws: Ledger.ApplyError.self) { try ledger.apply(post) }
        }
        #expect(ledger.transfers[transferID]?.status == .held)
    }

    @Test("a deposit or hold that moves one user's money to another is refused, whoever wrote it")
    func depositsAndHoldsMoveOnlyTheirOwn() throws {
        var ledger = try fundedLedger()
        let disguised = LedgerEvent(
            id: "disguised", kind: .deposit, userID: "bob",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("500")),
                LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("500")),
            ], amount: cny("500"))
        let strayHold = LedgerEvent(
            id: "stray", kind: .hold, userID: "alice", transferID: "t",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("5")),
                LedgerEntry(account: Ledger.held("bob"), side: .credit, amount: cny("5")),
            ], counterpartyUserID: "bob", amount: cny("5"))
        let movingOpening = LedgerEvent(
            id: "opening", kind: .accountOpened, userID: "dave", handles: ["dave@example.com"], accountVersion: 1)
        var withEntries = movingOpening
        withEntries.entries = disguised.entries
        for event in [disguised, strayHold, withEntries] {
            #expect(throws: Ledger.ApplyError.self, "\(event.id)") { try ledger.apply(event, checkingBalances: false) }
        }
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1000")))
        #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
        #expect(try ledger.apply(movingOpening))
    }

    @Test("an event written ahead under a later decision's id makes that decision refused, never a silent no-op")
    func prewrittenID() throws {
        let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)
        var ledger = try fundedLedger()
        let intent = pay("40")
        let proposal = confirmedEvent(intent, intentID: "ahead")
        let held = stage.process(
            key: "alice", value: proposal.encoded(), signature: signature(proposal), ledger: &ledger, now: t0)
        let hold = try #require(try held.events(to: .ledger).first?.decodeData(as: LedgerEvent.self))
        let transferID = try #require(hold.transferID)
        // With the operator's key: a deposit to Alice under the id the post will have.
        let ahead = LedgerEvent.deposit(
            id: EventID.derived("ledger", "post", transferID), userID: "alice", amount: cny("1"))
        #expect(try ledger.apply(ahead))
        let (answer, answerSignature) = answerEvent(
            .confirmed, binding: bindingFor(intent, intentID: "ahead"), intentID: "ahead")
        let answered = stage.process(
            key: "alice", value: answer.encoded(), signature: answerSignature, ledger: &ledger, now: t0)
        // No credit goes out for a post that is not in the ledger, and the user is told it failed.
        #expect(answered.effects.isEmpty)
        #expect(answered.response?.code == .failure)
        #expect(
            answered.response?.reason?.contains("idReused") == true, "\(String(describing: answered.response?.reason))")
        #expect(ledger.transfers[transferID]?.status == .voided)
        #expect(ledger.availableBalance(of: "alice", "CNY") == Money(cny("1001")))
        // The same event again is still a redelivery, not a reuse.
        #expect(try !ledger.apply(ahead))
    }

    // MARK: Exactly one final response

    /// Every step's events; the final responses among them must be one id with one content.
    func finalResponses(_ steps: [StageResult]) -> [String: Set<[UInt8]>] {
        var finals: [String: Set<[UInt8]>] = [:]
        for event in steps.flatMap({ $0.events(to: .responses) }) {
            guard let response = try? event.decodeData(as: IntentResponse.self), response.code.isFinal else { continue }
            finals[event.id, default: []].insert(event.encoded())
        }
        return finals
    }

    @Test(
        "whatever the order or number of answers and proposals, one final response",
        arguments: [
            "answer, proposal", "proposal, answer, answer", "proposal, answer, other answer",
            "proposal, decline, confirm", "proposal, proposal, answer", "proposal, expiry, answer",
            "proposal, answer, proposal, answer",
        ])
    func oneFinalResponse(_ order: String) throws {
        var ledger = try fundedLedger()
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        let binding = bindingFor(pay("100"), intentID: "i1")
        let answer = answerEvent(.confirmed, binding: binding, intentID: "i1")
        let other = answerEvent(.confirmed, binding: binding, intentID: "i1", id: "another-answer")
        let decline = answerEvent(.declined, binding: binding, intentID: "i1")
        var steps: [StageResult] = []
        var answers = 0
        for step in order.split(separator: ", ") {
            switch step {
            case "proposal": steps.append(run(proposal, signature: signature(proposal), &ledger))
            case "answer":
                answers += 1
                steps.append(run(answer.0, signature: answer.1, &ledger, at: t0.addingTimeInterval(Double(answers))))
            case "other answer": steps.append(run(other.0, signature: other.1, &ledger))
            case "decline": steps.append(run(decline.0, signature: decline.1, &ledger))
            case "confirm": steps.append(run(answer.0, signature: answer.1, &ledger))
            case "expiry":
                steps.append(stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(121), owns: { _ in true }))
            default: Issue.record("unknown step \(step)")
            }
        }
        let finals = finalResponses(steps)
        // An answer before any proposal is dead-lettered (`not_pending`), not answered: the hold
        // that follows waits for an answer that counts, so that order has no final response yet.
        let early = order.hasPrefix("answer")
        if early { #expect(steps.first?.rejected?.reason == .notPending) }
        #expect(finals.count == (early ? 0 : 1), "final response ids: \(finals.keys.sorted())")
        #expect(finals.values.allSatisfy { $0.count == 1 }, "one id published with different contents")
        // And money moved at most once.
        let posts = steps.flatMap(\.ledgerKinds).filter { $0 == .post }.count
        #expect(posts <= 1)
        let paid = ledger.availableBalance(of: "bob", "CNY")
        #expect(paid == Money(cny(posts == 1 ? "100" : "0")))
    }

    @Test("an expiry swept again after a crash publishes the same bytes")
    func deterministicSweep() throws {
        var ledger = try fundedLedger()
        let proposal = confirmedEvent(pay("100"), intentID: "i1")
        _ = run(proposal, signature: signature(proposal), &ledger)
        var copy = ledger
        let first = stage.sweep(ledger: &ledger, now: t0.addingTimeInterval(121), owns: { _ in true })
        let redo = stage.sweep(ledger: &copy, now: t0.addingTimeInterval(400), owns: { _ in true })
        #expect(!first.events.isEmpty)
        #expect(first.events.map { $0.event.encoded() } == redo.events.map { $0.event.encoded() })
    }
}
