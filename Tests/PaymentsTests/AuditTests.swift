import Foundation
import IntentEvents
import Intents
import Payments
import PipelineAudit
import Testing

@Suite("The audit finds broken rules")
struct AuditTests {
    /// As the payments stage writes them (it may write every kind).
    func wrap(_ event: LedgerEvent) -> EventEnvelope { event.envelope(source: PipelineSource.payments, time: t0) }

    func response(_ id: String, intent: String, _ code: ResponseCode) -> EventEnvelope {
        EventEnvelope(
            id: id, source: "/test", type: IntentResponse.type, time: t0, userID: "alice", conversationID: "c",
            intentID: intent, payload: IntentResponse(kind: .sendPayment, code: code, message: "m"))
    }

    /// A clean history: accounts, a deposit, the confirm stage's proposal to pay Bob, a hold, the
    /// user's confirmation and a post, one final response. `payee` is whom the hold and post pay.
    func history(payee: String = "bob", intent: String = "i1", proposed: Person = bob) -> (
        ledger: [EventEnvelope], answers: [EventEnvelope], responses: [EventEnvelope]
    ) {
        let binding = bindingFor(pay("100", to: proposed), intentID: intent)
        let accounts = [("alice", "+1 555 0100"), ("bob", "bob@example.com"), ("mallory", "mallory@evil.example")].map {
            LedgerEvent(id: "open-\($0.0)", kind: .accountOpened, userID: $0.0, handles: [$0.1], accountVersion: 1)
        }
        let account = payee == "bob" ? "bob@example.com" : "mallory@evil.example"
        let hold = LedgerEvent(
            id: "hold-\(intent)", kind: .hold, userID: "alice", intentID: intent, transferID: "t-\(intent)",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100")),
            ], counterpartyUserID: payee, counterpartyContactID: "c-bob", counterpartyAccount: account,
            amount: cny("100"), expiresAt: binding.expiresAt)
        let post = LedgerEvent(
            id: "post-\(intent)", kind: .post, userID: "alice", intentID: intent, transferID: "t-\(intent)",
            entries: [
                LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                LedgerEntry(account: Ledger.clearing, side: .credit, amount: cny("100")),
            ], counterpartyUserID: payee)
        let deposit = LedgerEvent.deposit(id: "deposit", userID: "alice", amount: cny("1000"))
        let (answer, _) = answerEvent(.confirmed, binding: binding, intentID: intent)
        let proposal = confirmedEvent(pay("100", to: proposed), intentID: intent)
        return (
            (accounts + [deposit, hold, post, credit(payee: payee, intent: intent)]).map(wrap), [proposal, answer],
            [response("r-\(intent)", intent: intent, .success)]
        )
    }

    /// The payee's member's credit of a transfer (on the payee's partition).
    func credit(payee: String, intent: String, amount: String = "100") -> LedgerEvent {
        LedgerEvent(
            id: "credit-\(intent)", kind: .credit, userID: payee, intentID: intent, transferID: "t-\(intent)",
            entries: LedgerEntry.move(cny(amount), from: Ledger.clearing, to: Ledger.available(payee)),
            counterpartyUserID: "alice", amount: cny(amount))
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
                    "transfer t-i1 was posted without its payer's confirmation",
                    "transfer t-i1 was posted without a proposal from the confirm stage",
                ])
        let otherKey = BindingKey(Array(repeating: 99, count: 32))
        #expect(
            PipelineAudit.audit(
                responses: responses, ledger: ledger, confirmations: answers, messages: [], bindingKey: otherKey
            ).findings == ["transfer t-i1 was posted on a confirmation that does not match it"])
        var secondPost = try! ledger[5].decodeData(as: LedgerEvent.self)
        secondPost.id = "post-again"
        let doubled = ledger + [wrap(secondPost)]
        let report = PipelineAudit.audit(responses: responses, ledger: doubled, confirmations: answers, messages: [])
        #expect(!report.findings.isEmpty, "a second post of one transfer must be found")
    }

    @Test("a wrong binding key is told apart from a tampered confirmation")
    func wrongKeyOrTampering() throws {
        let first = history(intent: "i1")
        let second = history(intent: "i2")
        let ledger = first.ledger + second.ledger
        let responses = first.responses + second.responses
        let audit = { (answers: [EventEnvelope], key: BindingKey) in
            PipelineAudit.audit(
                responses: responses, ledger: ledger, confirmations: answers, messages: [], bindingKey: key)
        }
        // The pipeline's key: both bindings verify.
        let clean = audit(first.answers + second.answers, bindingKey)
        #expect(clean.findings == [])
        #expect(clean.bindingKeyCheck == .verified)
        #expect(clean.postedTransfers == 2)
        // Another key: neither verifies. One finding about the key, none about the payments.
        let wrong = audit(first.answers + second.answers, BindingKey(Array(repeating: 99, count: 32)))
        #expect(wrong.bindingKeyCheck == .wrongKey)
        #expect(wrong.findings.count == 1)
        #expect(wrong.findings.first?.contains("matches none of the 2 confirmed bindings") == true, "\(wrong.findings)")
        // The right key, one answer's binding forged: that transfer, and only it, is found.
        let (forged, _) = answerEvent(
            .confirmed,
            binding: ConfirmationBinding(
                digest: String(repeating: "0", count: 64), expiresAt: bindingFor(pay("100"), intentID: "i2").expiresAt),
            intentID: "i2")
        let proposal = try #require(second.answers.first { $0.type != forged.type })
        let tampered = audit(first.answers + [proposal, forged], bindingKey)
        #expect(tampered.bindingKeyCheck == .mismatches)
        #expect(tampered.findings == ["transfer t-i2 was posted on a confirmation that does not match it"])
    }

    @Test(
        "a post never credited, a credit to another user than the hold's payee, a credit without a post: each is found")
    func credits() throws {
        let (ledger, answers, responses) = history()
        func findings(_ records: [EventEnvelope]) -> [String] {
            PipelineAudit.audit(responses: responses, ledger: records, confirmations: answers, messages: []).findings
        }
        // The credit lost: the money stays in clearing, and the transfer lacks it.
        let uncredited = findings(Array(ledger.dropLast()))
        #expect(uncredited.contains { $0.contains("posted but never credited") }, "\(uncredited)")
        #expect(uncredited.contains("transfer t-i1: [\"hold\", \"post\"]"), "\(uncredited)")
        // The credit sent (its effect on the confirmations topic) and not yet recorded: on its way.
        let effect = credit(payee: "bob", intent: "i1").envelope(source: PipelineSource.payments, time: t0)
        let travelling = PipelineAudit.audit(
            responses: responses, ledger: Array(ledger.dropLast()), confirmations: answers + [effect], messages: [])
        #expect(travelling.findings == [])
        #expect(travelling.creditsInTransit == 1)
        // On its way for longer than a credit may take: the money waits in clearing, and that
        // is a finding (a payee's member crash-looping, or its group committed past the effect).
        func inTransit(asOf: Date) -> PipelineAudit.Report {
            PipelineAudit.audit(
                responses: responses, ledger: Array(ledger.dropLast()), confirmations: answers + [effect], messages: [],
                creditDeadline: CreditDeadline(asOf: Timestamp(asOf), limit: .seconds(3600)))
        }
        let overdue = inTransit(asOf: t0.addingTimeInterval(3600.001))
        #expect(overdue.creditsInTransit == 1)
        #expect(
            overdue.findings == [
                "transfer t-i1: its credit has been on its way to the payee's member since \(Timestamp(t0)) (as of \(Timestamp(t0.addingTimeInterval(3600.001))), longer than 60 min): the money waits in clearing; is that member's group committed past it?"
            ])
        #expect(inTransit(asOf: t0.addingTimeInterval(3600)).findings == [], "at the limit, still on its way")
        // Sent, then refused by the payee's member (dead-lettered): not on its way, stuck.
        let refused = PipelineAudit.audit(
            responses: responses, ledger: Array(ledger.dropLast()), confirmations: answers + [effect], messages: [],
            deadLetters: [effect])
        #expect(refused.creditsInTransit == 0)
        #expect(refused.findings.contains { $0.contains("dead-lettered by the payee's member") }, "\(refused.findings)")
        // Credited to Mallory instead of Bob, balanced and well-formed.
        let diverted = findings(Array(ledger.dropLast()) + [wrap(credit(payee: "mallory", intent: "i1"))])
        #expect(
            diverted.contains { $0.contains("transfer t-i1 credited mallory 100 CNY but its hold names bob") },
            "\(diverted)")
        // A credit with no post behind it creates money.
        let unposted = findings(ledger + [wrap(credit(payee: "bob", intent: "i9"))])
        #expect(unposted.contains("transfer t-i9: [\"credit\"]"), "\(unposted)")
        #expect(unposted.contains { $0.contains("money was created or lost") }, "\(unposted)")
    }

    @Test("records no reader takes from their source count for nothing, and each is found")
    func recordsNoReaderTakes() throws {
        // SECURITY.md, attack 49: with produce rights alone, the credit copied from its effect
        // onto the ledger under a voice service's name (the payee's member never credited it:
        // its group was committed past the effect); a proposal naming the credited handle and an
        // answer, each from a source the payments stage does not take them from.
        let (ledger, answers, responses) = history()
        let effect = credit(payee: "bob", intent: "i1").envelope(source: PipelineSource.payments, time: t0)
        let forgedCredit = credit(payee: "bob", intent: "i1").envelope(source: "/voice/x", time: t0)
        var proposal = try #require(answers.first { $0.type == IntentConfirmation.type })
        proposal.source = "/voice/x"
        proposal.id = "forged-proposal"
        var answer = try #require(answers.first { $0.type == ConfirmationAnswer.type })
        answer.source = PipelineSource.resolve
        answer.id = "forged-answer"
        let report = PipelineAudit.audit(
            responses: responses, ledger: Array(ledger.dropLast()) + [forgedCredit],
            confirmations: answers + [effect, proposal, answer], messages: [])
        #expect(
            report.findings.contains {
                $0.contains(
                    "ledger record \(forgedCredit.id) is one no reader applies: /voice/x may not write the ledger")
            }, "\(report.findings)")
        // Not settled by the forged credit: still on its way, as the payee's member sees it.
        #expect(report.creditsInTransit == 1)
        #expect(report.findings.contains { $0.contains("forged-proposal is a proposal from /voice/x") })
        #expect(report.findings.contains { $0.contains("forged-answer is an answer from /workers/resolve") })
        // The genuine history alone has none of these.
        let genuine = PipelineAudit.audit(
            responses: responses, ledger: Array(ledger.dropLast()), confirmations: answers + [effect], messages: [])
        #expect(genuine.findings == [])
        // A ledger event from a stage that may not write that kind, or keyed to another user.
        let byResolve = credit(payee: "bob", intent: "i1").envelope(source: PipelineSource.resolve, time: t0)
        var misKeyed = wrap(credit(payee: "bob", intent: "i1"))
        misKeyed.userID = "mallory"
        for (record, why) in [(byResolve, "/workers/resolve may not write the ledger"), (misKeyed, "keyed by mallory")]
        {
            let refused = PipelineAudit.audit(
                responses: responses, ledger: Array(ledger.dropLast()) + [record], confirmations: answers + [effect],
                messages: [])
            #expect(refused.findings.contains { $0.contains(why) }, "\(refused.findings)")
            #expect(refused.creditsInTransit == 1)
        }
    }

    @Test("a post that credits another account than the one the user confirmed is found")
    func swappedPayee() throws {
        // The hold and post pay Mallory, consistently with each other, but the user confirmed Bob's account.
        let (ledger, answers, responses) = history(payee: "mallory")
        let report = PipelineAudit.audit(responses: responses, ledger: ledger, confirmations: answers, messages: [])
        #expect(report.findings.count == 1)
        #expect(report.findings.first?.contains("instead of bob@example.com (bob)") == true, "\(report.findings)")
    }

    /// The resolve stage's resolution of `intent` (what the user asked for), as it signs it.
    func resolution(
        _ intent: Intent, intentID: String = "i1", source: String = PipelineSource.resolve, time: Date = t0
    ) -> EventEnvelope {
        EventEnvelope(
            id: "resolved-\(intentID)", source: source, type: IntentResolutionReport.resolvedType, time: time,
            dataSchema: IntentResolutionReport.resolvedDataSchema, userID: "alice", conversationID: "c",
            intentID: intentID, payload: IntentResolutionReport(turn: 1, intent: intent, parameters: []))
    }

    /// A holder of the confirm stage's key proposes, and asks the user about, Mallory's account
    /// where the user asked to pay Bob; the user's answer echoes that proposal's binding, and
    /// the hold, post and credit pay Mallory consistently. Against the proposal alone it is
    /// clean; against what the resolve stage resolved (another key) it is not.
    @Test("a payment proposed to another payee than the resolve stage resolved is found")
    func proposalAgainstResolution() {
        let mallory = Person(spoken: "Bob", handle: "mallory@evil.example", contactID: "c-bob", displayName: "Bob")
        let (ledger, answers, responses) = history(payee: "mallory", proposed: mallory)
        func findings(_ resolved: [EventEnvelope]?, complete: Bool = true) -> [String] {
            var audit = StreamingAudit()
            for event in responses { audit.response(event) }
            for record in ledger { audit.ledgerRecord(record) }
            for record in answers { audit.confirmation(record) }
            if let resolved {
                for record in resolved { audit.resolvedIntent(record) }
                audit.resolvedIntentsRead(complete: complete)
            }
            return audit.report(bindingKey: bindingKey).findings
        }
        #expect(findings(nil) == [], "the proposal alone vouches for it")
        let redirected = findings([resolution(pay("100"))])
        #expect(redirected.count == 1, "\(redirected)")
        #expect(
            redirected.first?.hasPrefix("transfer t-i1 was proposed to mallory@evil.example") == true
                && redirected.first?.contains("bob@example.com") == true, "\(redirected)")
        // Another amount than the one resolved is the same finding.
        #expect(findings([resolution(pay("10", to: mallory))]).count == 1)
        // What the user asked for, resolved, is no finding; several turns may resolve one intent.
        #expect(findings([resolution(pay("100")), resolution(pay("100", to: mallory))]) == [])
        // No resolution: a finding when the reader read every resolution. Read from a topic that
        // retention trims, only when the proposal came a day or more after the oldest resolution
        // read (its own cannot have been deleted), not when none was read (a copy without them).
        let missing = ["transfer t-i1 was posted without a resolved intent from the resolve stage"]
        #expect(findings([]) == missing)
        #expect(findings([], complete: false) == [])
        let older = t0.addingTimeInterval(-2 * 86_400)
        #expect(findings([resolution(pay("1"), intentID: "i0", time: older)], complete: false) == missing)
        let recent = t0.addingTimeInterval(-3600)
        #expect(findings([resolution(pay("1"), intentID: "i0", time: recent)], complete: false) == [])
        // A resolution in the confirm stage's name counts for nothing, and is itself a finding.
        let byConfirm = findings([resolution(pay("100", to: mallory), source: PipelineSource.confirm)])
        #expect(byConfirm.count == 2, "\(byConfirm)")
        #expect(byConfirm.contains { $0.contains("is from /workers/confirm, which the confirm stage refuses") })
    }

    @Test("the audit's own double-entry rules catch what a lenient ledger would accept")
    func entryRules() throws {
        let (ledger, answers, responses) = history()
        // A hold that parks Alice's money in Mallory's held account: balanced, so Ledger.apply takes it.
        let stray = LedgerEvent(
            id: "stray-hold", kind: .hold, userID: "alice", intentID: "i2", transferID: "t2",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("50")),
                LedgerEntry(account: Ledger.held("mallory"), side: .credit, amount: cny("50")),
            ], counterpartyUserID: "bob", amount: cny("50"))
        // A deposit that credits Bob out of Alice's account instead of from outside.
        let fakeDeposit = LedgerEvent(
            id: "fake-deposit", kind: .deposit, userID: "bob",
            entries: [
                LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("10")),
                LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("10")),
            ], amount: cny("10"))
        let report = PipelineAudit.audit(
            responses: responses, ledger: ledger + [wrap(stray), wrap(fakeDeposit)], confirmations: answers,
            messages: [])
        #expect(report.findings.contains { $0.hasPrefix("ledger event stray-hold: hold moves") }, "\(report.findings)")
        #expect(
            report.findings.contains { $0.hasPrefix("ledger event fake-deposit: deposit moves") }, "\(report.findings)")
        // Money that left Alice for Bob without a deposit: users hold what was deposited, so that still adds up;
        // a deposit credited from nowhere does not.
        let fromNowhere = LedgerEvent(
            id: "from-nowhere", kind: .deposit, userID: "bob",
            entries: [
                LedgerEntry(account: Ledger.funding, side: .debit, amount: cny("10")),
                LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("10")),
            ], amount: cny("5"))
        let created = PipelineAudit.audit(
            responses: responses, ledger: ledger + [wrap(fromNowhere)], confirmations: answers, messages: [])
        #expect(created.findings.contains { $0.contains("money was created or lost") }, "\(created.findings)")
    }
}
