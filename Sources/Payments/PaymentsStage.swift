public import Foundation
public import IntentEvents
public import Intents

/// The payments stage as a pure function over the ledger: the only place
/// money moves. A confirmed payment reserves the amount (the confirm stage
/// has asked the user, with a binding made with the same key); the money moves only when the user's authenticated answer echoes the
/// binding of exactly this proposal before it expires. A decline, a
/// mismatch, an expiry or a missing proposal moves nothing and releases the
/// hold. Every decision is recorded as a ledger event before anything else is
/// published, and a decision already recorded is answered again, not redone.
public struct PaymentsStage: Sendable {
    public let bindingKey: BindingKey
    public let authenticator: EventAuthenticator
    public let source: String

    public init(bindingKey: BindingKey, authenticator: EventAuthenticator, source: String = "/workers/payments") {
        self.bindingKey = bindingKey
        self.authenticator = authenticator
        self.source = source
    }

    /// One record of the confirmations topic. `signature` is the record's signature header.
    public func process(
        key: String?, value: [UInt8]?, signature: String?, ledger: inout Ledger, now: Date = Date()
    ) -> StageResult {
        let envelope: EventEnvelope
        do throws(EventDecodingError) {
            envelope = try IncomingEvent.decode(
                key: key, value: value,
                types: [IntentConfirmation.type, ConfirmationAnswer.type, PaymentRequestDecline.type],
                requireIntentID: false)
            if envelope.type == PaymentRequestDecline.type {
                try authenticator.verify(envelope, signature: signature)
                let decline = try envelope.decodeData(as: PaymentRequestDecline.self)
                return declined(decline, envelope, &ledger, now)
            }
            guard envelope.intentID != nil else {
                throw EventDecodingError(.schemaInvalid, field: "$.intentid", "an intent event needs an intent id")
            }
            if envelope.type == ConfirmationAnswer.type {
                try authenticator.verify(envelope, signature: signature)
                let answer = try envelope.decodeData(as: ConfirmationAnswer.self)
                return answered(answer, envelope, &ledger, now)
            }
            let confirmation = try envelope.decodeData(as: IntentConfirmation.self)
            return propose(confirmation, envelope, &ledger, now)
        } catch {
            return .rejected(error)
        }
    }

    // MARK: Proposals

    private func propose(
        _ confirmation: IntentConfirmation, _ envelope: EventEnvelope, _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        let userID = envelope.userID
        let intentID = envelope.intentID!
        guard confirmation.code == .ready else { return .ignored("confirm result \(confirmation.code); nothing to do") }
        guard let terms = PaymentTerms(confirmation.intent) else { return .ignored("not a financial intent") }
        let kind = confirmation.intent.kind
        // Already decided: a redelivery, or a replay after a crash.
        if let transfer = ledger.transfer(forIntent: intentID, of: userID) {
            return .ignored("transfer \(transfer.id) already \(transfer.status.rawValue)")
        }
        if let proposal = ledger.request(forIntent: intentID, of: userID) {
            return .ignored("payment request \(proposal.id) already \(proposal.status.rawValue)")
        }
        if ledger.closedProposals[intentID] != nil { return .ignored("proposal already closed") }
        guard let binding = confirmation.binding else {
            return refuse(envelope, kind, .failure, "noBinding", &ledger, now)
        }
        // Check again what the confirm stage checked: its view of the ledger may be behind.
        guard ledger.accounts[userID] != nil, let handle = terms.counterparty?.handle,
            let other = ledger.account(handle: handle), other.userID != userID
        else {
            return refuse(envelope, kind, .failure, "counterpartyNoAccount", &ledger, now)
        }
        let money = terms.money
        let contactID = terms.counterparty?.contactID
        let event: LedgerEvent
        if kind == .requestPayment {
            event = LedgerEvent(
                id: EventID.derived("ledger", "requestProposed", userID, intentID), kind: .requestProposed,
                userID: userID, intentID: intentID, requestID: Ledger.requestID(userID: userID, intentID: intentID),
                counterpartyUserID: other.userID, counterpartyContactID: contactID, amount: money.currencyAmount,
                note: terms.note, expiresAt: binding.expiresAt)
        } else {
            guard ledger.availableBalance(of: userID, money.currency) >= money else {
                return refuse(envelope, .sendPayment, .failureInsufficientFunds, nil, &ledger, now)
            }
            let transferID = Ledger.transferID(userID: userID, intentID: intentID)
            event = LedgerEvent(
                id: EventID.derived("ledger", "hold", transferID), kind: .hold, userID: userID, intentID: intentID,
                transferID: transferID, requestID: terms.paysRequestID,
                entries: [
                    LedgerEntry(account: Ledger.available(userID), side: .debit, amount: money.currencyAmount),
                    LedgerEntry(account: Ledger.held(userID), side: .credit, amount: money.currencyAmount),
                ],
                counterpartyUserID: other.userID, counterpartyContactID: contactID, amount: money.currencyAmount,
                note: terms.note, expiresAt: binding.expiresAt)
        }
        guard let recorded = record(event, envelope, &ledger, now) else {
            return refuse(envelope, kind, .failureInsufficientFunds, nil, &ledger, now)
        }
        return StageResult(events: [recorded])
    }

    // MARK: Answers

    private func answered(
        _ answer: ConfirmationAnswer, _ envelope: EventEnvelope, _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        let userID = envelope.userID
        let intentID = envelope.intentID!
        if let transfer = ledger.transfer(forIntent: intentID, of: userID) {
            return answeredPayment(answer, transfer, envelope, &ledger, now)
        }
        if let proposal = ledger.request(forIntent: intentID, of: userID) {
            return answeredRequest(answer, proposal, envelope, &ledger, now)
        }
        if let reason = ledger.closedProposals[intentID] {
            return .ignored("proposal for \(intentID) already closed (\(reason))")
        }
        // Nothing to confirm: no money moves; say so once.
        let response = IntentResponse(
            kind: .sendPayment, code: .failure, reason: "noPendingConfirmation",
            message: "There is nothing to confirm for this intent.")
        return StageResult(events: [
            (.responses, envelope.response(response, source: source, time: now, intentID: intentID))
        ])
    }

    private func answeredPayment(
        _ answer: ConfirmationAnswer, _ transfer: Ledger.Transfer, _ envelope: EventEnvelope, _ ledger: inout Ledger,
        _ now: Date
    ) -> StageResult {
        switch transfer.status {
        case .posted:
            return StageResult(events: [(.responses, paid(transfer, envelope, now))])
        case .voided:
            return .ignored("transfer \(transfer.id) was already released")
        case .held:
            break
        }
        if let failure = check(answer, envelope, transfer.payeeContactID, transfer.money, transfer.expiresAt, now) {
            return release(transfer, failure, envelope, &ledger, now)
        }
        let post = LedgerEvent(
            id: EventID.derived("ledger", "post", transfer.id), kind: .post, userID: transfer.payer,
            intentID: transfer.intentID, transferID: transfer.id, requestID: transfer.paysRequestID,
            entries: [
                LedgerEntry(account: Ledger.held(transfer.payer), side: .debit, amount: transfer.money.currencyAmount),
                LedgerEntry(
                    account: Ledger.available(transfer.payee), side: .credit, amount: transfer.money.currencyAmount),
            ],
            counterpartyUserID: transfer.payee, counterpartyContactID: transfer.payeeContactID,
            amount: transfer.money.currencyAmount)
        var events: [(Destination, EventEnvelope)] = []
        guard let posted = record(post, envelope, &ledger, now) else {
            return release(transfer, "ledgerRefused", envelope, &ledger, now)
        }
        events.append(posted)
        if let requestID = transfer.paysRequestID, ledger.requests[requestID]?.status == .pending {
            let paidRequest = LedgerEvent(
                id: EventID.derived("ledger", "requestPaid", requestID), kind: .requestPaid, userID: transfer.payer,
                intentID: transfer.intentID, transferID: transfer.id, requestID: requestID)
            // Keyed by the requester: it follows the request's creation on the same partition.
            let requester = ledger.requests[requestID]?.requester
            if let recorded = record(paidRequest, envelope, &ledger, now, partitionUser: requester) {
                events.append(recorded)
            }
        }
        events.append((.responses, paid(transfer, envelope, now)))
        return StageResult(events: events)
    }

    private func paid(_ transfer: Ledger.Transfer, _ envelope: EventEnvelope, _ now: Date) -> EventEnvelope {
        envelope.response(
            IntentResponse(
                kind: .sendPayment, code: .success, message: "Sent \(transfer.money).", transferID: transfer.id,
                paymentRequestID: transfer.paysRequestID),
            source: source, time: now, intentID: transfer.intentID)
    }

    private func answeredRequest(
        _ answer: ConfirmationAnswer, _ proposal: Ledger.PaymentRequest, _ envelope: EventEnvelope,
        _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        guard proposal.status == .proposed else {
            if proposal.status == .pending || proposal.status == .paid || proposal.status == .declined {
                return StageResult(events: [(.responses, requested(proposal, envelope, now))])
            }
            return .ignored("payment request \(proposal.id) already \(proposal.status.rawValue)")
        }
        if let failure = check(answer, envelope, proposal.payerContactID, proposal.money, proposal.expiresAt, now) {
            return close(proposal.intentID, proposal.id, .requestPayment, failure, envelope, &ledger, now)
        }
        let created = LedgerEvent(
            id: EventID.derived("ledger", "requestCreated", proposal.id), kind: .requestCreated,
            userID: proposal.requester, intentID: proposal.intentID, requestID: proposal.id,
            counterpartyUserID: proposal.payer, amount: proposal.money.currencyAmount, note: proposal.note)
        guard let recorded = record(created, envelope, &ledger, now) else {
            return close(proposal.intentID, proposal.id, .requestPayment, "ledgerRefused", envelope, &ledger, now)
        }
        return StageResult(events: [recorded, (.responses, requested(proposal, envelope, now))])
    }

    private func requested(_ proposal: Ledger.PaymentRequest, _ envelope: EventEnvelope, _ now: Date) -> EventEnvelope {
        envelope.response(
            IntentResponse(
                kind: .requestPayment, code: .success, message: "Requested \(proposal.money).",
                paymentRequestID: proposal.id),
            source: source, time: now, intentID: proposal.intentID)
    }

    /// Why an answer does not confirm the proposal, or nil when it does.
    private func check(
        _ answer: ConfirmationAnswer, _ envelope: EventEnvelope, _ contactID: String?, _ money: Money,
        _ expiresAt: Timestamp?, _ now: Date
    ) -> String? {
        guard let expiresAt else { return "noExpiry" }
        guard
            bindingKey.matches(
                answer.binding, intentID: envelope.intentID!, userID: envelope.userID, counterpartyContactID: contactID,
                money: money, expiresAt: expiresAt)
        else { return "confirmationMismatch" }
        guard Timestamp(now) <= expiresAt else { return "confirmationExpired" }
        guard answer.decision == .confirmed else { return "declinedByUser" }
        return nil
    }

    /// The payer declines a pending request: recorded on the requester's
    /// partition, after the request's creation. Nothing moves.
    private func declined(
        _ decline: PaymentRequestDecline, _ envelope: EventEnvelope, _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        guard let request = ledger.requests[decline.paymentRequestID] else {
            return .rejected(
                EventDecodingError(.schemaInvalid, field: "$.data.paymentRequestID", "no such payment request"))
        }
        guard request.payer == envelope.userID else {
            return .rejected(
                EventDecodingError(.wrongUser, field: "$.userid", "only the payer can decline a payment request"))
        }
        guard request.status == .pending else {
            return .ignored("payment request \(request.id) is \(request.status.rawValue)")
        }
        let event = LedgerEvent(
            id: EventID.derived("ledger", "requestDeclined", request.id), kind: .requestDeclined,
            userID: envelope.userID, intentID: request.intentID, requestID: request.id,
            counterpartyUserID: request.requester, amount: request.money.currencyAmount)
        guard let recorded = record(event, envelope, &ledger, now, partitionUser: request.requester) else {
            return .ignored("the ledger refused the decline of \(request.id)")
        }
        return StageResult(events: [recorded])
    }

    // MARK: Releasing

    /// Voids expired holds and closes expired request proposals of the users this worker owns.
    public func sweep(ledger: inout Ledger, now: Date = Date(), owns: (String) -> Bool) -> StageResult {
        var result = StageResult()
        let stamp = Timestamp(now)
        for transfer in ledger.expiredHolds(of: owns, at: stamp) {
            let cause = sweepCause(userID: transfer.payer, intentID: transfer.intentID, now: stamp)
            result.events += release(transfer, "confirmationExpired", cause, &ledger, now).events
        }
        for proposal in ledger.expiredRequestProposals(of: owns, at: stamp) {
            let cause = sweepCause(userID: proposal.requester, intentID: proposal.intentID, now: stamp)
            result.events +=
                close(proposal.intentID, proposal.id, .requestPayment, "confirmationExpired", cause, &ledger, now)
                .events
        }
        return result
    }

    private func sweepCause(userID: String, intentID: String, now: Timestamp) -> EventEnvelope {
        EventEnvelope(
            id: EventID.derived("expiry", userID, intentID), source: source, type: "payment.expiry.v1", time: now.date,
            userID: userID, conversationID: "payments", intentID: intentID, data: .object([:]))
    }

    private func release(
        _ transfer: Ledger.Transfer, _ reason: String, _ envelope: EventEnvelope, _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        let void = LedgerEvent(
            id: EventID.derived("ledger", "void", transfer.id), kind: .void, userID: transfer.payer,
            intentID: transfer.intentID, transferID: transfer.id,
            entries: [
                LedgerEntry(account: Ledger.held(transfer.payer), side: .debit, amount: transfer.money.currencyAmount),
                LedgerEntry(
                    account: Ledger.available(transfer.payer), side: .credit, amount: transfer.money.currencyAmount),
            ],
            amount: transfer.money.currencyAmount, reason: reason)
        var events: [(Destination, EventEnvelope)] = []
        if let recorded = record(void, envelope, &ledger, now) { events.append(recorded) }
        let response = IntentResponse(
            kind: .sendPayment, code: .failure, reason: reason, message: Self.sentence(reason),
            transferID: transfer.id)
        events.append((.responses, envelope.response(response, source: source, time: now, intentID: transfer.intentID)))
        return StageResult(events: events)
    }

    private func close(
        _ intentID: String, _ requestID: String?, _ kind: Intent.Kind, _ reason: String, _ envelope: EventEnvelope,
        _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        let closed = LedgerEvent(
            id: EventID.derived("ledger", "proposalClosed", envelope.userID, intentID), kind: .proposalClosed,
            userID: envelope.userID, intentID: intentID, requestID: requestID, reason: reason)
        var events: [(Destination, EventEnvelope)] = []
        if let recorded = record(closed, envelope, &ledger, now) { events.append(recorded) }
        let response = IntentResponse(
            kind: kind, code: .failure, reason: reason, message: Self.sentence(reason), paymentRequestID: requestID)
        events.append((.responses, envelope.response(response, source: source, time: now, intentID: intentID)))
        return StageResult(events: events)
    }

    /// A proposal refused before anything was reserved.
    private func refuse(
        _ envelope: EventEnvelope, _ kind: Intent.Kind, _ code: ResponseCode, _ reason: String?,
        _ ledger: inout Ledger, _ now: Date
    ) -> StageResult {
        var result = close(envelope.intentID!, nil, kind, reason ?? code.rawValue, envelope, &ledger, now)
        // The response carries the specific code, not the generic failure.
        if let index = result.events.firstIndex(where: { $0.destination == .responses }) {
            result.events[index].event = envelope.response(
                IntentResponse(kind: kind, code: code, reason: reason, message: Self.sentence(reason ?? code.rawValue)),
                source: source, time: now, intentID: envelope.intentID!)
        }
        return result
    }

    /// Applies a ledger event and wraps it for the ledger topic; nil if the ledger refuses it.
    private func record(
        _ event: LedgerEvent, _ cause: EventEnvelope, _ ledger: inout Ledger, _ now: Date, partitionUser: String? = nil
    ) -> (Destination, EventEnvelope)? {
        do {
            try ledger.apply(event)
        } catch {
            return nil
        }
        return (
            .ledger,
            event.envelope(
                source: source, time: now, partitionUser: partitionUser, conversationID: cause.conversationID,
                causationID: cause.id)
        )
    }

    static func sentence(_ reason: String) -> String {
        switch reason {
        case "declinedByUser": "OK, I won't send it."
        case "confirmationExpired": "The confirmation timed out; nothing was sent."
        case "confirmationMismatch": "That confirmation doesn't match this payment; nothing was sent."
        case "counterpartyNoAccount": "They cannot receive payments."
        case "failureInsufficientFunds": "You don't have enough money for this."
        default: "Nothing was sent (\(reason))."
        }
    }
}
