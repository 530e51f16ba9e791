public import Foundation
public import IntentEvents
public import Intents
import Localization

/// The payments stage as a pure function over the ledger: the only place
/// money moves. A proposal from the confirm stage (signed by it) reserves
/// the amount; the money moves only when the user's authenticated answer
/// echoes the binding of exactly this proposal (payer, payee contact and
/// account, amount, currency, note, expiry) before it expires. A decline, a
/// mismatch, an expiry or a missing proposal moves nothing and releases the
/// hold.
///
/// Every decision is recorded as a ledger event, with the id of the event
/// that decided it, before anything else is published. So each intent has
/// exactly one final response: the deciding event, redelivered after a
/// crash, is answered again with the same bytes (times and ids come from the
/// inputs, never from the clock); any other event (a second answer, a late
/// proposal) finds the intent decided and publishes nothing.
public struct PaymentsStage: Sendable {
    public let bindingKey: BindingKey
    /// Voice services' keys: the users' answers and declines.
    public let authenticator: EventAuthenticator
    /// The stages' keys: proposals must come from the confirm stage.
    public let stages: EventAuthenticator
    /// The amount rules, checked again on every proposal before money is held: this stage's
    /// own configuration, so a proposal the confirm stage let through (its rules older during
    /// a rollout, or a holder of its key writing one) holds nothing the rules forbid here.
    public let amounts: AmountPolicy
    public let source: String

    public init(
        bindingKey: BindingKey, authenticator: EventAuthenticator, stages: EventAuthenticator,
        amounts: AmountPolicy = .default, source: String = PipelineSource.payments
    ) {
        self.bindingKey = bindingKey
        self.authenticator = authenticator
        self.stages = stages
        self.amounts = amounts
        self.source = source
    }

    /// What the input topic carries, and what a proposal is: built once, not for every record.
    private static let inputTypes: Set = [
        IntentConfirmation.type, ConfirmationAnswer.type, PaymentRequestDecline.type, LedgerEvent.type,
    ]
    private static let proposalTypes: Set = [IntentConfirmation.type]

    /// One record of the confirmations topic. `signature` is the record's signature headers;
    /// `now` decides only whether an answer came in time.
    ///
    /// `ledger` is the state of the record's partition: the users whose records
    /// arrive there. `directory` finds counterparts' accounts (nil: the ledger's
    /// own accounts, when one ledger holds every user). What a decision does to
    /// another user's state (a payee's credit, the payer's side of a request) is
    /// not written here: it goes as an effect, a ledger event on the
    /// confirmations topic keyed by that user, which that user's member records
    /// (``recordEffect(_:_:_:)``).
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, ledger: inout Ledger,
        directory: AccountDirectory? = nil, now: Date = Date()
    ) -> StageResult {
        var unremembered: ReplayGuard?
        return process(
            key: key, value: value, signature: signature, ledger: &ledger, directory: directory, now: now,
            seen: &unremembered)
    }

    /// The same, for a worker: `seen` remembers the proposals acted on, so a copy re-appended
    /// to the topic answers nothing again (the ledger already refuses to hold twice).
    /// `speaksThrough` says whether a user speaks through a voice service (the user's settings,
    /// as the resolve stage binds a request): a decline of a payment request comes straight
    /// from a voice service, past the resolve stage, so it is checked here.
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, ledger: inout Ledger,
        directory: AccountDirectory? = nil, now: Date = Date(), seen: inout ReplayGuard?,
        speaksThrough: (_ userID: String, _ voiceService: String) -> Bool = { _, _ in true }
    ) -> StageResult {
        let envelope: EventEnvelope
        let accounts = directory ?? ledger.directory
        do throws(EventDecodingError) {
            envelope = try decoded(
                key: key, value: value,
                types: Self.inputTypes,
                horizon: ledger.idempotencyHorizon, now: now)
            if envelope.type == LedgerEvent.type {
                try stages.verify(
                    envelope, received: value, signature: signature, producedBy: .only(PipelineSource.payments))
                return recordEffect(try LedgerEvent.decode(from: envelope), envelope, &ledger)
            }
            if envelope.type == PaymentRequestDecline.type {
                try authenticator.verify(
                    envelope, received: value, signature: signature, producedBy: PipelineSource.voice)
                guard speaksThrough(envelope.userID, envelope.source) else {
                    throw EventDecodingError(
                        .wrongProducer, field: "$.source",
                        "user \(envelope.userID) does not speak through \(envelope.source): only a voice service the user is bound to declines their payment requests"
                    )
                }
                let decline = try envelope.decodeData(as: PaymentRequestDecline.self)
                return declined(decline, envelope, &ledger)
            }
            let intentID = try IntentEvent(envelope).intentID
            if envelope.type == ConfirmationAnswer.type {
                try authenticator.verify(
                    envelope, received: value, signature: signature, producedBy: PipelineSource.voice)
                let answer = try envelope.decodeData(as: ConfirmationAnswer.self)
                return answered(answer, envelope, intentID, &ledger, accounts, now)
            }
            let confirmation = try verifiedProposal(envelope, value, signature, now: now)
            if let refused = seen?.outcome(for: envelope, bytes: value, signature: signature, now: now) {
                return refused
            }
            return propose(confirmation, envelope, intentID, &ledger, accounts)
        } catch {
            return .rejected(error)
        }
    }

    /// A proposal read back from the input partition (a worker that gained it, see
    /// the workers' `ReplayMemory`), remembered in `seen` exactly as ``process(key:value:signature:ledger:directory:now:seen:)``
    /// remembered it when it acted: only if it passes the same checks (`horizon`: the ledger's
    /// ``Ledger/idempotencyHorizon``), so a forged or stale record before the genuine one
    /// cannot make the genuine one look like a replay. Other records of the topic (answers,
    /// declines, effects) are not remembered here: the ledger remembers what they did.
    public func remember(
        key: String?, value: [UInt8]?, signature: EventSignature?, horizon: Duration?, now: Date = Date(),
        seen: inout ReplayGuard?
    ) {
        remember(
            verifiedAtAnyAge(key: key, value: value, signature: signature), value: value, signature: signature,
            horizon: horizon, now: now, seen: &seen)
    }

    /// What ``remember(key:value:signature:horizon:now:seen:)`` checks of a record but the
    /// checks that depend on the time read: decoded, a proposal, signed by the confirm stage,
    /// with a well-formed payload. The record's event if it passes, nil if not. For a reader
    /// that reads the same immutable record back again and again (the simulation's replay
    /// memory, on every member that gains its partition), which keeps this and checks the
    /// rest per read (``remember(_:value:signature:horizon:now:seen:)``).
    public func verifiedAtAnyAge(key: String?, value: [UInt8]?, signature: EventSignature?) -> EventEnvelope? {
        func checked() throws(EventDecodingError) -> EventEnvelope {
            let envelope = try IncomingEvent.decode(key: key, value: value, types: Self.proposalTypes)
            _ = try IntentEvent(envelope)
            try signedByConfirm(envelope, value, signature)
            _ = try envelope.decodeData(as: IntentConfirmation.self)
            return envelope
        }
        return try? checked()
    }

    /// ``remember(key:value:signature:horizon:now:seen:)`` for a record checked already by
    /// ``verifiedAtAnyAge(key:value:signature:)`` (nil: it failed): only the checks that depend on
    /// the time read are made, at `now` (inside the idempotency `horizon`, and as fresh as a
    /// stage event must be).
    public func remember(
        _ envelope: EventEnvelope?, value: [UInt8]?, signature: EventSignature?, horizon: Duration?,
        now: Date = Date(), seen: inout ReplayGuard?
    ) {
        guard let envelope else { return }
        do throws(EventDecodingError) {
            try withinHorizon(envelope, horizon, now: now)
            try FreshnessWindow.stageEvents.check(envelope, now: now)
        } catch {
            return
        }
        _ = seen?.outcome(for: envelope, bytes: value, signature: signature, now: now)
    }

    /// A record of the input decoded, if it is one of `types` and inside the idempotency
    /// `horizon`: past half of it, what was decided about it may be forgotten, so it is
    /// refused and nothing can be decided twice (``Ledger/idempotencyHorizon``). An effect
    /// (the second half of a decision already made, such as a payee's credit) is taken for
    /// the whole horizon, so a member that was down for hours still records it; the ledger
    /// remembers it for a horizon after recording it, so it is never recorded twice.
    private func decoded(
        key: String?, value: [UInt8]?, types: Set<String>, horizon: Duration?, now: Date
    ) throws(EventDecodingError) -> EventEnvelope {
        let envelope = try IncomingEvent.decode(key: key, value: value, types: types)
        try withinHorizon(envelope, horizon, now: now)
        return envelope
    }

    /// The time-dependent half of ``decoded(key:value:types:horizon:now:)``: an event inside
    /// the idempotency `horizon` (nil: any age), and ahead of the clock by no more than
    /// clock skew (``FreshnessWindow/default``). The time of an answer or an effect dates
    /// what it decides, and so moves the ledger's clock: half a horizon ahead (as it was)
    /// let a voice service push a payee's ledger a half day on, until it forgot a credit it
    /// would still take again from the input.
    private func withinHorizon(_ envelope: EventEnvelope, _ horizon: Duration?, now: Date)
        throws(EventDecodingError)
    {
        guard let horizon else { return }
        let past = envelope.type == LedgerEvent.type ? horizon : horizon / 2
        try FreshnessWindow(past: past, future: FreshnessWindow.default.future).check(envelope, now: now)
    }

    /// A proposal checked as every decision on it and every remembered one takes it: signed
    /// by the confirm stage and, as a stage event, at most as old as a user may take to confirm.
    /// A refusal asks for no money and ends its intent: it is taken however late inside the
    /// idempotency horizon, so a payments stage that fell behind still says it.
    private func verifiedProposal(
        _ envelope: EventEnvelope, _ value: [UInt8]?, _ signature: EventSignature?, now: Date
    ) throws(EventDecodingError) -> IntentConfirmation {
        try signedByConfirm(envelope, value, signature)
        let confirmation = try envelope.decodeData(as: IntentConfirmation.self)
        if confirmation.code == .ready { try FreshnessWindow.stageEvents.check(envelope, now: now) }
        return confirmation
    }

    /// Whether a proposal is signed by the confirm stage (over `value`, the record's bytes).
    private func signedByConfirm(_ envelope: EventEnvelope, _ value: [UInt8]?, _ signature: EventSignature?)
        throws(EventDecodingError)
    {
        try stages.verify(envelope, received: value, signature: signature, producedBy: .only(PipelineSource.confirm))
    }

    // MARK: Effects

    /// The ledger kinds one user's decision writes for another user, on that user's partition.
    public static let effectKinds: Set<LedgerEvent.Kind> = [.credit, .requestReceived, .requestPaid, .requestDeclined]

    /// A decision's effect on another user's state, sent to that user's
    /// partition of the confirmations topic: the ledger event that user's
    /// member is to record, in an envelope of its own id.
    private func effect(_ event: LedgerEvent, _ cause: EventEnvelope) -> (Destination, EventEnvelope) {
        var envelope = envelope(of: event, cause)
        envelope.id = EventID.derived("effect", event.id)
        return (.effects, envelope)
    }

    /// A ledger event as this stage publishes it, dated and caused by `cause`. Like every
    /// derived event it carries its cause's extension attributes (a voice service's
    /// traceparent: the hold, the post and the credit are part of its trace).
    private func envelope(of event: LedgerEvent, _ cause: EventEnvelope) -> EventEnvelope {
        var envelope = event.envelope(
            source: source, time: cause.time, conversationID: cause.conversationID, causationID: cause.id)
        envelope.extensions = cause.extensions
        return envelope
    }

    /// Records an effect another member's decision sent to this user (only the
    /// payments stage's, only of the effect kinds, only for the user it is keyed
    /// by). Recorded once: a redelivered effect finds its event applied.
    private func recordEffect(_ event: LedgerEvent, _ envelope: EventEnvelope, _ ledger: inout Ledger)
        -> StageResult
    {
        guard Self.effectKinds.contains(event.kind) else {
            return .rejected(
                EventDecodingError(.schemaInvalid, field: "$.data.kind", "a \(event.kind.rawValue) is not an effect"))
        }
        guard event.userID == envelope.userID else {
            return .rejected(
                EventDecodingError(
                    .wrongUser, field: "$.data.userID", "an effect is recorded for the user it is sent to"))
        }
        guard !ledger.contains(eventID: event.id) else { return .ignored("effect \(event.id) already recorded") }
        switch record(event, envelope, &ledger) {
        case .success(let recorded): return StageResult(events: [recorded])
        case .failure(let refusal):
            return .rejected(
                EventDecodingError(.schemaInvalid, field: "$.data", "the ledger refuses this effect: \(refusal)"))
        }
    }

    // MARK: Proposals

    private func propose(
        _ confirmation: IntentConfirmation, _ envelope: EventEnvelope, _ intentID: String, _ ledger: inout Ledger,
        _ accounts: AccountDirectory
    ) -> StageResult {
        let userID = envelope.userID
        let kind = confirmation.intent.kind
        guard confirmation.intent.isFinancial else { return .ignored("not a financial intent") }
        // Already decided: a redelivery, or a replay after a crash.
        if let transfer = ledger.transfer(forIntent: intentID, of: userID) {
            return .ignored("transfer \(transfer.id) already \(transfer.status.rawValue)")
        }
        if let proposal = ledger.request(forIntent: intentID, of: userID) {
            return .ignored("payment request \(proposal.id) already \(proposal.status.rawValue)")
        }
        if let closed = ledger.closedProposal(forIntent: intentID, of: userID) {
            guard closed.decidedBy == envelope.id else { return .ignored("proposal already closed (\(closed.reason))") }
            // This proposal (or the confirm stage's refusal under its id, which a redo of it
            // proposes under the same id) was closed, and may not have been answered yet: said
            // again from what the ledger recorded, so every copy says the same bytes.
            let cause = Self.redelivered(envelope, decidedAt: closed.decidedAt)
            return StageResult(events: [(.responses, closedResponse(kind, closed.reason, nil, cause, intentID))])
        }
        guard confirmation.code == .ready else { return refused(confirmation, envelope, intentID, &ledger) }
        guard let terms = PaymentTerms(confirmation.intent) else { return .ignored("not a financial intent") }
        guard let binding = confirmation.binding else {
            return close(intentID, nil, kind, "noBinding", envelope, &ledger)
        }
        // The proposal is bound to its terms (the account's owner and the voice service that
        // asked among them), and asks for no more time than the rule allows.
        let requestSource = RequestSource.of(envelope)
        let owner = terms.account.flatMap { accounts.account(handle: $0) }
        let bound = terms.binding(
            kind: kind, intentID: intentID, userID: userID, expiresAt: binding.expiresAt,
            counterpartyUserID: owner?.userID, requestSource: requestSource)
        guard bindingKey.matches(binding, bound) else {
            return close(intentID, nil, kind, "bindingMismatch", envelope, &ledger)
        }
        let latest = Timestamp(
            envelope.time.addingTimeInterval(Double(ConfirmationBinding.maximumWindow.components.seconds)))
        guard binding.expiresAt <= latest else {
            return close(intentID, nil, kind, "expiryTooLong", envelope, &ledger)
        }
        // Check again what the confirm stage checked: its rules may differ from this stage's
        // (a rollout), its view of the ledger may be behind, and a holder of its key skips it.
        // The amount rules first, as there: the rule the user broke is the one said.
        let money = terms.money
        if let violation = amounts.check(money.currencyAmount) {
            return close(
                intentID, nil, kind, Self.closingReason(violation.responseCode, violation.reason), envelope, &ledger)
        }
        guard let payer = accounts.accounts[userID] else {
            return close(intentID, nil, kind, ResponseCode.failureNoBankAccount.rawValue, envelope, &ledger)
        }
        guard payer.verified else {
            return close(intentID, nil, kind, ResponseCode.failureCredentialsUnverified.rawValue, envelope, &ledger)
        }
        guard let account = terms.account, let other = owner else {
            return close(intentID, nil, kind, "counterpartyNoAccount", envelope, &ledger)
        }
        guard other.userID != userID else { return close(intentID, nil, kind, "selfPayment", envelope, &ledger) }
        let contactID = terms.counterparty?.contactID
        let event: LedgerEvent
        if kind == .requestPayment {
            let open = ledger.openRequests(of: userID, to: other.userID)
            guard open.toPayer < Ledger.maximumOpenRequestsToOnePayer, open.all < Ledger.maximumOpenRequests else {
                return close(intentID, nil, kind, "tooManyOpenRequests", envelope, &ledger)
            }
            event = LedgerEvent(
                id: EventID.derived("ledger", "requestProposed", userID, intentID), kind: .requestProposed,
                userID: userID, intentID: intentID, requestID: Ledger.requestID(userID: userID, intentID: intentID),
                counterpartyUserID: other.userID, counterpartyContactID: contactID, counterpartyAccount: account,
                amount: money.currencyAmount, note: terms.note, expiresAt: binding.expiresAt,
                requestSource: requestSource)
        } else {
            let transferID = Ledger.transferID(userID: userID, intentID: intentID)
            // A request no longer open before the balance, as the confirm stage says it: the
            // ledger would refuse the hold either way, but the user hears why.
            if let requestID = terms.paysRequestID,
                ledger.whyNotPayable(
                    requestID, payer: userID, payee: other.userID, money: money, transferID: transferID) != nil
            {
                return close(
                    intentID, nil, .sendPayment, ResponseCode.failurePaymentRequestNotPayable.rawValue, envelope,
                    &ledger)
            }
            guard ledger.availableBalance(of: userID, money.currency) >= money else {
                return close(
                    intentID, nil, .sendPayment, ResponseCode.failureInsufficientFunds.rawValue, envelope, &ledger)
            }
            event = LedgerEvent(
                id: EventID.derived("ledger", "hold", transferID), kind: .hold, userID: userID, intentID: intentID,
                transferID: transferID, requestID: terms.paysRequestID,
                entries: LedgerEntry.move(
                    money.currencyAmount, from: Ledger.available(userID), to: Ledger.held(userID)),
                counterpartyUserID: other.userID, counterpartyContactID: contactID, counterpartyAccount: account,
                amount: money.currencyAmount, note: terms.note, expiresAt: binding.expiresAt,
                requestSource: requestSource)
        }
        switch record(event, envelope, &ledger) {
        case .success(let recorded): return StageResult(events: [recorded])
        case .failure(let refusal): return close(intentID, nil, kind, refusal.responseReason, envelope, &ledger)
        }
    }

    /// A payment the confirm stage refused (too little money, no account, a request no longer
    /// open, the amount rules): closed here, where the confirm stage's redo of it finds it
    /// whatever the ledger, the accounts or the rules say by then, and said from what the ledger
    /// records (the refusal's code, or its reason), as every redelivery of it says it again.
    private func refused(
        _ confirmation: IntentConfirmation, _ envelope: EventEnvelope, _ intentID: String, _ ledger: inout Ledger
    ) -> StageResult {
        guard confirmation.code.isFinal, confirmation.code != .success else {
            return .ignored("confirm result \(confirmation.code); nothing to do")
        }
        let reason = Self.closingReason(confirmation.code, confirmation.reason)
        return close(intentID, nil, confirmation.intent.kind, reason, envelope, &ledger)
    }

    /// What a closed proposal records as its reason: the response code when it has one of its
    /// own, else the failure's reason (``closedResponse(_:_:_:_:_:)`` says it back the same way).
    static func closingReason(_ code: ResponseCode, _ reason: String?) -> String {
        code == .failure ? reason ?? "failure" : code.rawValue
    }

    // MARK: Answers

    private func answered(
        _ answer: ConfirmationAnswer, _ envelope: EventEnvelope, _ intentID: String, _ ledger: inout Ledger,
        _ accounts: AccountDirectory, _ now: Date
    ) -> StageResult {
        let userID = envelope.userID
        if let transfer = ledger.transfer(forIntent: intentID, of: userID) {
            return answeredPayment(answer, transfer, envelope, &ledger, accounts, now)
        }
        if let proposal = ledger.request(forIntent: intentID, of: userID) {
            return answeredRequest(answer, proposal, envelope, &ledger, now)
        }
        // Ended before any answer could count (refused at confirm, or by this stage on taking the
        // proposal): nothing is pending, as for an intent with no proposal at all. No answer
        // decides a closed proposal, so none is answered again (one under the closing
        // proposal's id is a copy made to look like it).
        if let closed = ledger.closedProposal(forIntent: intentID, of: userID) {
            return .rejected(
                EventDecodingError(
                    .notPending, field: "$.intentid",
                    "intent \(intentID) ended (\(closed.reason)) before any confirmation of it could count"))
        }
        // Nothing to confirm: an answer before any proposal (which the confirm stage's order rules
        // out for honest clients), or to an intent that ended before it reached this stage (at
        // confirm or handle, which answered it already). No money moves, and no response: an
        // intent has one final response, and this answer is not its cause.
        return .rejected(
            EventDecodingError(
                .notPending, field: "$.intentid", "no confirmation of intent \(intentID) is pending for this user"))
    }

    /// Refuses an answer under the id the expiry sweep decides `intentID` under (nil: another id).
    /// That id is derived, so anyone can compute it: an answer under it that came after the
    /// expiry and before the sweep would be taken for the sweep's own decision, which the sweep
    /// answers again, and one after the sweep for its redelivery (a second final response).
    /// Asked only where the id would decide or repeat an expiry, so an answer's usual path
    /// derives nothing.
    private static func posingAsTheSweep(_ envelope: EventEnvelope, _ intentID: String) -> StageResult? {
        guard envelope.id == Ledger.expiryID(userID: envelope.userID, intentID: intentID) else { return nil }
        return .rejected(
            EventDecodingError(.schemaInvalid, field: "$.id", "an answer may not take the expiry sweep's id"))
    }

    /// Refuses an answer from another voice service than the one that asked, before it can
    /// decide anything: it neither confirms nor releases the hold (nil: the answer may decide).
    private func foreignAnswer(_ envelope: EventEnvelope, asked requestSource: String?) -> StageResult? {
        guard let requestSource, envelope.source != requestSource else { return nil }
        return .rejected(
            EventDecodingError(
                .wrongProducer, field: "$.source",
                "the confirmation was asked by \(requestSource); an answer from \(envelope.source) does not count"))
    }

    private func answeredPayment(
        _ answer: ConfirmationAnswer, _ transfer: Ledger.Transfer, _ envelope: EventEnvelope, _ ledger: inout Ledger,
        _ accounts: AccountDirectory, _ now: Date
    ) -> StageResult {
        switch transfer.status {
        case .posted, .voided:
            guard transfer.decidedBy == envelope.id else {
                return .ignored("transfer \(transfer.id) already \(transfer.status.rawValue)")
            }
            if let refused = Self.posingAsTheSweep(envelope, transfer.intentID) { return refused }
            // A copy of the deciding answer counts only from the voice service that asked.
            if let foreign = foreignAnswer(envelope, asked: transfer.requestSource) { return foreign }
            // The answer that decided, redelivered: the same effects and response again (a crash
            // may have come between the post and them; the receivers record an effect once).
            let cause = Self.redelivered(envelope, decidedAt: transfer.decidedAt)
            guard transfer.status == .posted else {
                return StageResult(
                    events: [(.responses, released(transfer, transfer.voidReason ?? "released", cause))])
            }
            // (The request it paid is marked paid on this side only by a post that paid it.)
            let paidRequest = transfer.paysRequestID.flatMap { ledger.requests[$0] }.flatMap {
                $0.status == .paid ? $0 : nil
            }
            return StageResult(
                events: postEffects(transfer, paying: paidRequest, cause) + [(.responses, paid(transfer, cause))])
        case .held:
            break
        }
        if let foreign = foreignAnswer(envelope, asked: transfer.requestSource) { return foreign }
        if let failure = check(answer, transfer.bindingTerms, now) {
            if failure == Ledger.expiryReason, let refused = Self.posingAsTheSweep(envelope, transfer.intentID) {
                return refused
            }
            return release(transfer, failure, envelope, &ledger)
        }
        // The account confirmed is the account paid: its handle must still belong to the payee.
        guard let account = transfer.payeeAccount, accounts.account(handle: account)?.userID == transfer.payee else {
            return release(transfer, "payeeAccountChanged", envelope, &ledger)
        }
        let decidedAt = Timestamp(envelope.time)
        let post = LedgerEvent(
            id: EventID.derived("ledger", "post", transfer.id), kind: .post, userID: transfer.payer,
            intentID: transfer.intentID, transferID: transfer.id, requestID: transfer.paysRequestID,
            entries: LedgerEntry.move(
                transfer.money.currencyAmount, from: Ledger.held(transfer.payer), to: Ledger.clearing),
            counterpartyUserID: transfer.payee, counterpartyContactID: transfer.payeeContactID,
            counterpartyAccount: account, amount: transfer.money.currencyAmount, decidedBy: envelope.id,
            decidedAt: decidedAt)
        // The request this pays, as the payer's side knows it (the post marks it paid).
        let paidRequest = transfer.paysRequestID.flatMap { ledger.requests[$0] }.flatMap {
            $0.status == .pending ? $0 : nil
        }
        var posted = transfer
        posted.payeeAccount = account
        posted.decidedBy = envelope.id
        posted.decidedAt = decidedAt
        var events: [(Destination, EventEnvelope)] = []
        switch record(post, envelope, &ledger) {
        case .success(let posted): events.append(posted)
        case .failure(let refusal): return release(transfer, refusal.responseReason, envelope, &ledger)
        }
        events += postEffects(posted, paying: paidRequest, envelope)
        events.append((.responses, paid(transfer, envelope)))
        return StageResult(events: events)
    }

    /// What a post sends to other users' members: the payee's credit (the money is in
    /// clearing until it is recorded) and, for a payment of a request, the requester's
    /// side of it. Built from the posted transfer alone, so the deciding answer
    /// redelivered sends exactly the same effects again.
    private func postEffects(
        _ transfer: Ledger.Transfer, paying request: Ledger.PaymentRequest?, _ cause: EventEnvelope
    ) -> [(Destination, EventEnvelope)] {
        let credit = LedgerEvent(
            id: EventID.derived("ledger", "credit", transfer.id), kind: .credit, userID: transfer.payee,
            intentID: transfer.intentID, transferID: transfer.id,
            entries: LedgerEntry.move(
                transfer.money.currencyAmount, from: Ledger.clearing, to: Ledger.available(transfer.payee)),
            counterpartyUserID: transfer.payer, counterpartyAccount: transfer.payeeAccount,
            amount: transfer.money.currencyAmount, decidedBy: transfer.decidedBy, decidedAt: transfer.decidedAt)
        var effects = [effect(credit, cause)]
        if let request {
            let settled = LedgerEvent(
                id: EventID.derived("ledger", "requestPaid", request.id), kind: .requestPaid, userID: request.requester,
                intentID: request.intentID, transferID: transfer.id, requestID: request.id,
                counterpartyUserID: transfer.payer, decidedBy: transfer.decidedBy, decidedAt: transfer.decidedAt)
            effects.append(effect(settled, cause))
        }
        return effects
    }

    private func paid(_ transfer: Ledger.Transfer, _ envelope: EventEnvelope) -> EventEnvelope {
        envelope.response(
            IntentResponse(
                kind: .sendPayment, code: .success,
                saying: LocalizedMessage(.paymentSent, ["amount": .amount(transfer.money.currencyAmount)]),
                answering: envelope, transferID: transfer.id, paymentRequestID: transfer.paysRequestID),
            source: source, time: envelope.time, intentID: transfer.intentID)
    }

    private func answeredRequest(
        _ answer: ConfirmationAnswer, _ proposal: Ledger.PaymentRequest, _ envelope: EventEnvelope,
        _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        guard proposal.status == .proposed else {
            guard proposal.decidedBy == envelope.id else {
                return .ignored("payment request \(proposal.id) already \(proposal.status.rawValue)")
            }
            if let refused = Self.posingAsTheSweep(envelope, proposal.intentID) { return refused }
            // The answer that decided, seen again: only from the voice service that asked, and
            // answered as it was first, dated when it decided (its own conversation and trace
            // attributes are still its own: SECURITY.md, known gaps). A copy
            // re-signed with a fresh time must not make a new-looking effect: the payer's member
            // takes an effect it no longer remembers if it is recent, and would open again a
            // request it paid or declined and forgot (SECURITY.md, attack 52).
            if let foreign = foreignAnswer(envelope, asked: proposal.requestSource) { return foreign }
            let cause = Self.redelivered(envelope, decidedAt: proposal.decidedAt)
            guard proposal.status != .closed else {
                let reason =
                    ledger.closedProposal(forIntent: proposal.intentID, of: proposal.requester)?.reason ?? "closed"
                return StageResult(
                    events: [
                        (.responses, closedResponse(.requestPayment, reason, proposal.id, cause, proposal.intentID))
                    ])
            }
            // Created by this answer, redelivered: the payer's side again too (recorded once there),
            // while the request is still open; one paid or declined is not sent again.
            guard proposal.status == .pending else {
                return StageResult(events: [(.responses, requested(proposal, cause))])
            }
            return StageResult(events: [requestReceived(proposal, cause), (.responses, requested(proposal, cause))])
        }
        if let foreign = foreignAnswer(envelope, asked: proposal.requestSource) { return foreign }
        if let failure = check(answer, proposal.bindingTerms, now) {
            if failure == Ledger.expiryReason, let refused = Self.posingAsTheSweep(envelope, proposal.intentID) {
                return refused
            }
            return close(proposal.intentID, proposal.id, .requestPayment, failure, envelope, &ledger)
        }
        let created = LedgerEvent(
            id: EventID.derived("ledger", "requestCreated", proposal.id), kind: .requestCreated,
            userID: proposal.requester, intentID: proposal.intentID, requestID: proposal.id,
            counterpartyUserID: proposal.payer, amount: proposal.money.currencyAmount, note: proposal.note,
            decidedBy: envelope.id, decidedAt: Timestamp(envelope.time))
        switch record(created, envelope, &ledger) {
        case .success(let recorded):
            return StageResult(
                events: [recorded, requestReceived(proposal, envelope), (.responses, requested(proposal, envelope))])
        case .failure(let refusal):
            return close(proposal.intentID, proposal.id, .requestPayment, refusal.responseReason, envelope, &ledger)
        }
    }

    /// The payer's side of a request the requester's answer created, for the payer's member.
    private func requestReceived(_ proposal: Ledger.PaymentRequest, _ answer: EventEnvelope) -> (
        Destination, EventEnvelope
    ) {
        effect(
            LedgerEvent(
                id: EventID.derived("ledger", "requestReceived", proposal.id), kind: .requestReceived,
                userID: proposal.payer, intentID: proposal.intentID, requestID: proposal.id,
                counterpartyUserID: proposal.requester, amount: proposal.money.currencyAmount, note: proposal.note,
                decidedBy: answer.id, decidedAt: Timestamp(answer.time)),
            answer)
    }

    private func requested(_ proposal: Ledger.PaymentRequest, _ envelope: EventEnvelope) -> EventEnvelope {
        envelope.response(
            IntentResponse(
                kind: .requestPayment, code: .success,
                saying: LocalizedMessage(.paymentRequested, ["amount": .amount(proposal.money.currencyAmount)]),
                answering: envelope, paymentRequestID: proposal.id),
            source: source, time: envelope.time, intentID: proposal.intentID)
    }

    /// The deciding event seen again, dated as it was when it decided: a redelivery (or a
    /// re-sent copy with the same id) is answered with exactly the bytes answered first.
    private static func redelivered(_ envelope: EventEnvelope, decidedAt: Timestamp?) -> EventEnvelope {
        var cause = envelope
        if let decidedAt { cause.time = decidedAt.date }
        return cause
    }

    /// Why an answer does not confirm the proposal, or nil when it does.
    private func check(_ answer: ConfirmationAnswer, _ terms: BindingTerms?, _ now: Date) -> String? {
        guard let terms else { return "noExpiry" }
        guard bindingKey.matches(answer.binding, terms) else { return "confirmationMismatch" }
        guard Timestamp(now) <= terms.expiresAt else { return "confirmationExpired" }
        guard answer.decision == .confirmed else { return "declinedByUser" }
        return nil
    }

    /// The payer declines a pending request: recorded on the payer's
    /// partition, and sent to the requester's as an effect. Nothing moves.
    private func declined(
        _ decline: PaymentRequestDecline, _ envelope: EventEnvelope, _ ledger: inout Ledger
    ) -> StageResult {
        guard let request = ledger.requests[decline.paymentRequestID] else {
            return .rejected(
                EventDecodingError(.schemaInvalid, field: "$.data.paymentRequestID", "no such payment request"))
        }
        guard request.payer == envelope.userID else {
            return .rejected(
                EventDecodingError(.wrongUser, field: "$.userid", "only the payer can decline a payment request"))
        }
        let decidedAt = Timestamp(envelope.time)
        let requesterSide = LedgerEvent(
            id: EventID.derived("ledger", "requestDeclined", request.id), kind: .requestDeclined,
            userID: request.requester, intentID: request.intentID, requestID: request.id,
            counterpartyUserID: envelope.userID, amount: request.money.currencyAmount, decidedBy: envelope.id,
            decidedAt: decidedAt)
        guard request.status == .pending else {
            // Declined already, by this decline (redelivered: a decline of the same time): the
            // requester's side again, which its member records once (a crash may have come
            // between the two). Another decline would send it under its id with its own
            // `decidedBy`: one effect id with two contents.
            guard request.status == .declined, request.endedAt == decidedAt else {
                return .ignored("payment request \(request.id) is \(request.status.rawValue)")
            }
            return StageResult(events: [effect(requesterSide, envelope)])
        }
        // A payment of it is in progress (its hold reserves the request): declined now, the
        // payment would still post, and the requester be paid a request that reads "declined"
        // (SECURITY.md, attack 53). Declined after that payment ends, if it is voided.
        if let transfer = request.reservedBy {
            return .rejected(
                EventDecodingError(
                    .notPending, field: "$.data.paymentRequestID",
                    "payment request \(request.id) is being paid (transfer \(transfer) holds it)"))
        }
        let payerSide = LedgerEvent(
            id: EventID.derived("ledger", "requestDeclined", request.id, "payer"), kind: .requestDeclined,
            userID: envelope.userID, intentID: request.intentID, requestID: request.id,
            counterpartyUserID: request.requester, amount: request.money.currencyAmount, decidedBy: envelope.id,
            decidedAt: decidedAt)
        switch record(payerSide, envelope, &ledger) {
        case .success(let recorded): return StageResult(events: [recorded, effect(requesterSide, envelope)])
        case .failure(let refusal): return .ignored("the ledger refused the decline of \(request.id): \(refusal)")
        }
    }

    // MARK: Releasing

    /// How long after an expiry its final response is sent again by a member that restored
    /// the expiry without knowing whether it was answered (a crash between the sweep's ledger
    /// round and its response): far longer than a takeover takes.
    public static let reanswerWindow: Duration = .seconds(600)

    /// Voids expired holds and closes expired request proposals of the users this worker owns;
    /// and answers again the expiries restored from the topic whose answer may have been lost.
    public func sweep(ledger: inout Ledger, now: Date = Date(), owns: (String) -> Bool) -> StageResult {
        var result = StageResult()
        let stamp = Timestamp(now)
        let since = Timestamp(now.addingTimeInterval(-Double(Self.reanswerWindow.components.seconds)))
        for (userID, intentID) in ledger.takeUnansweredExpiries(decidedSince: since, owns: owns) {
            if let transfer = ledger.transfer(forIntent: intentID, of: userID), transfer.status == .voided,
                let expiresAt = transfer.expiresAt
            {
                let cause = expiry(userID: userID, intentID: intentID, at: expiresAt)
                result.events.append((.responses, released(transfer, Ledger.expiryReason, cause)))
            } else if let request = ledger.request(forIntent: intentID, of: userID), let expiresAt = request.expiresAt {
                let cause = expiry(userID: userID, intentID: intentID, at: expiresAt)
                result.events.append(
                    (.responses, closedResponse(.requestPayment, Ledger.expiryReason, request.id, cause, intentID)))
            }
        }
        for transfer in ledger.expiredHolds(of: owns, at: stamp) {
            let cause = expiry(userID: transfer.payer, intentID: transfer.intentID, at: transfer.expiresAt ?? stamp)
            result.events += release(transfer, Ledger.expiryReason, cause, &ledger).events
            ledger.answeredExpiry(userID: transfer.payer, intentID: transfer.intentID)
        }
        for proposal in ledger.expiredRequestProposals(of: owns, at: stamp) {
            let cause = expiry(userID: proposal.requester, intentID: proposal.intentID, at: proposal.expiresAt ?? stamp)
            result.events +=
                close(proposal.intentID, proposal.id, .requestPayment, Ledger.expiryReason, cause, &ledger).events
            ledger.answeredExpiry(userID: proposal.requester, intentID: proposal.intentID)
        }
        return result
    }

    /// The expiry as the event that decides: dated when the proposal expired, so a sweep
    /// repeated after a crash publishes the same response.
    private func expiry(userID: String, intentID: String, at expiresAt: Timestamp) -> EventEnvelope {
        EventEnvelope(
            id: Ledger.expiryID(userID: userID, intentID: intentID), source: source, type: "payment.expiry.v1",
            time: expiresAt.date, userID: userID, conversationID: "payments", intentID: intentID, data: .object([:]))
    }

    private func release(
        _ transfer: Ledger.Transfer, _ reason: String, _ envelope: EventEnvelope, _ ledger: inout Ledger
    ) -> StageResult {
        let void = LedgerEvent(
            id: EventID.derived("ledger", "void", transfer.id), kind: .void, userID: transfer.payer,
            intentID: transfer.intentID, transferID: transfer.id,
            entries: LedgerEntry.move(
                transfer.money.currencyAmount, from: Ledger.held(transfer.payer), to: Ledger.available(transfer.payer)),
            amount: transfer.money.currencyAmount, reason: reason, decidedBy: envelope.id,
            decidedAt: Timestamp(envelope.time))
        var events: [(Destination, EventEnvelope)] = []
        if case .success(let recorded) = record(void, envelope, &ledger) { events.append(recorded) }
        events.append((.responses, released(transfer, reason, envelope)))
        return StageResult(events: events)
    }

    private func released(_ transfer: Ledger.Transfer, _ reason: String, _ envelope: EventEnvelope) -> EventEnvelope {
        let response = IntentResponse(
            kind: .sendPayment, code: .failure, reason: reason, saying: Self.sentence(reason), answering: envelope,
            transferID: transfer.id)
        return envelope.response(response, source: source, time: envelope.time, intentID: transfer.intentID)
    }

    /// Ends a proposal without moving money. `reason` is a ``ResponseCode`` raw value for
    /// refusals that have their own code (insufficient funds), else a reason of `failure`.
    private func close(
        _ intentID: String, _ requestID: String?, _ kind: Intent.Kind, _ reason: String, _ envelope: EventEnvelope,
        _ ledger: inout Ledger
    ) -> StageResult {
        let closed = LedgerEvent(
            id: EventID.derived("ledger", "proposalClosed", envelope.userID, intentID), kind: .proposalClosed,
            userID: envelope.userID, intentID: intentID, requestID: requestID, reason: reason, decidedBy: envelope.id,
            decidedAt: Timestamp(envelope.time))
        var events: [(Destination, EventEnvelope)] = []
        if case .success(let recorded) = record(closed, envelope, &ledger) { events.append(recorded) }
        events.append((.responses, closedResponse(kind, reason, requestID, envelope, intentID)))
        return StageResult(events: events)
    }

    private func closedResponse(
        _ kind: Intent.Kind, _ reason: String, _ requestID: String?, _ envelope: EventEnvelope, _ intentID: String
    ) -> EventEnvelope {
        // A reason that names a failure code says it; any other (whatever a refusal's sender
        // wrote, "success" too) is a failure with that reason.
        let code = ResponseCode(rawValue: reason).flatMap { $0.isFinal && $0 != .success ? $0 : nil } ?? .failure
        let response = IntentResponse(
            kind: kind, code: code, reason: code == .failure ? reason : nil, saying: Self.sentence(reason),
            answering: envelope, paymentRequestID: requestID)
        return envelope.response(response, source: source, time: envelope.time, intentID: intentID)
    }

    /// Applies a ledger event and wraps it for the ledger topic, or says why the ledger refused it.
    /// The event is stamped with the claim this member writes under (``Ledger/writer``), so
    /// it counts only while that claim is the partition's latest (``LedgerOwner``).
    private func record(
        _ event: LedgerEvent, _ cause: EventEnvelope, _ ledger: inout Ledger
    ) -> Result<(Destination, EventEnvelope), Ledger.ApplyError> {
        var event = event
        event.owner = ledger.writer?.description
        do throws(Ledger.ApplyError) {
            try ledger.apply(event, at: Timestamp(cause.time))
        } catch {
            return .failure(error)
        }
        if let amount = event.amount, let kind = Self.movement(of: event.kind) {
            ledger.movements.record(kind, Money(amount))
        }
        return .success((.ledger, envelope(of: event, cause)))
    }

    private static func movement(of kind: LedgerEvent.Kind) -> MoneyMovements.Kind? {
        switch kind {
        case .post: .posted
        case .void: .voided
        default: nil
        }
    }

    static func sentence(_ reason: String) -> LocalizedMessage {
        switch reason {
        case "declinedByUser": LocalizedMessage(.paymentDeclinedByUser)
        case "confirmationExpired": LocalizedMessage(.confirmationExpired)
        case "confirmationMismatch": LocalizedMessage(.confirmationMismatch)
        case "counterpartyNoAccount": LocalizedMessage(.payeeCannotReceive)
        case "payeeAccountChanged": LocalizedMessage(.payeeAccountChanged)
        case "failureInsufficientFunds": LocalizedMessage(.notEnoughMoney)
        case "failurePaymentRequestNotPayable": LocalizedMessage(.paymentRequestNotOpen)
        case "failureNoBankAccount": LocalizedMessage(.noPaymentAccount)
        case "failureCredentialsUnverified": LocalizedMessage(.paymentDetailsUnverified)
        case "selfPayment": LocalizedMessage(.cannotPaySelf)
        case "tooManyOpenRequests": LocalizedMessage(.tooManyOpenRequests)
        case "amountMissing": LocalizedMessage(.amountMissing)
        case "failurePaymentsAmountBelowMinimum", "failurePaymentsAmountAboveMaximum",
            "failurePaymentsCurrencyUnsupported", "invalidAmountPrecision":
            LocalizedMessage(.amountNotAllowed)
        default: LocalizedMessage(.nothingSent, ["reason": .text(reason)])
        }
    }
}

extension Ledger.ApplyError {
    /// What the user's response says of a refusal: too little money is
    /// SiriKit's failureInsufficientFunds; anything else is a failure whose
    /// reason names the refusal (`ledgerRefused:transferMismatch`), so a
    /// refusal is never reported as another.
    var responseReason: String {
        switch self {
        case .negativeBalance: return ResponseCode.failureInsufficientFunds.rawValue
        case .requestNotPayable: return ResponseCode.failurePaymentRequestNotPayable.rawValue
        default: return "ledgerRefused:\(reason)"
        }
    }
}
