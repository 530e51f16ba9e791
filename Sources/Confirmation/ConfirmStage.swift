public import Foundation
public import IntentEvents
public import Intents
import Localization
public import Payments

/// SiriKit's confirm stage as a pure function: the final check that a
/// resolved intent can be done, and the response the user would see.
/// Messaging intents that pass go to the handle stage. Financial intents that
/// pass go to the payments stage (which reserves the money) and, right after,
/// the user is asked to confirm them, with a binding the answer must echo.
/// Anything that cannot be done ends here with its response code.
public struct ConfirmStage: Sendable {
    public var amounts: AmountPolicy
    /// Messaging services that are down right now (operators set this).
    public var unavailableServices: Set<String>
    /// Signs the bindings of confirmation requests (the payments stage checks them with the same key).
    public let bindingKey: BindingKey
    /// Checks that resolved intents come from the resolve stage.
    public let authenticator: EventAuthenticator
    /// How long the user has to answer a confirmation request, from the intent's
    /// time; at most ``ConfirmationBinding/maximumWindow``.
    public let confirmationWindow: Duration
    public let source: String
    /// How old a resolved intent may be when it is decided on (``FreshnessWindow/stageEvents``
    /// in the worker); nil decides on any (replays of history, tests of other rules).
    public var freshness: FreshnessWindow?

    public init(
        bindingKey: BindingKey, authenticator: EventAuthenticator, amounts: AmountPolicy = .default,
        unavailableServices: Set<String> = [], confirmationWindow: Duration = .seconds(120),
        source: String = PipelineSource.confirm, freshness: FreshnessWindow? = nil
    ) {
        self.freshness = freshness
        self.bindingKey = bindingKey
        self.authenticator = authenticator
        self.amounts = amounts
        self.unavailableServices = Set(unavailableServices.map { $0.lowercased() })
        self.confirmationWindow = min(confirmationWindow, ConfirmationBinding.maximumWindow)
        self.source = source
    }

    /// One resolved intent. Everything it publishes is derived from the input
    /// (ids, times, the expiry and so the binding), so redoing it after a crash
    /// publishes the same event ids and the same binding, never a second,
    /// different proposal. What a payment's verdict reads (the user's ledger, the
    /// accounts, the amount rules) can move before a redo: a proposal the payments stage
    /// took is proposed again as it was, a refusal is the payments stage's to record and
    /// say (a redo that finds it closed says nothing), and a redo's copy that differs
    /// (`ledgerVersion`, or a verdict decided before it sees the first) is answered by the
    /// payments stage as the first: consumers keep the first copy of an id, and so does
    /// `intentctl replay confirm`.
    /// `ledger` is the state of the record's partition (the user's balances and
    /// the requests they were sent); `directory` finds accounts (nil: the
    /// ledger's own, when one ledger holds every user).
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, ledger: Ledger, directory: AccountDirectory? = nil
    ) -> StageResult {
        var unremembered: ReplayGuard?
        return process(
            key: key, value: value, signature: signature, ledger: ledger, directory: directory, seen: &unremembered)
    }

    /// What this stage takes (also what a worker remembers of a partition it gains).
    public var input: StageInput<IntentResolutionReport> {
        StageInput(
            type: IntentResolutionReport.resolvedType, producer: PipelineSource.resolve, keys: authenticator,
            freshness: freshness)
    }

    /// The same, for a worker: `seen` remembers the resolved intents acted on (a copy
    /// re-appended to the topic asks nothing again), `now` decides only freshness.
    public func process(
        key: String?, value: [UInt8]?, signature: EventSignature?, ledger: Ledger, directory: AccountDirectory? = nil,
        now wallClock: Date = Date(), seen: inout ReplayGuard?
    ) -> StageResult {
        let envelope: EventEnvelope
        let intentID: String
        let report: IntentResolutionReport
        do throws(EventDecodingError) {
            (envelope, intentID, report) = try input.verified(
                key: key, value: value, signature: signature, now: wallClock)
        } catch {
            return .rejected(error)
        }
        if let refused = seen?.outcome(for: envelope, bytes: value, signature: signature, now: wallClock) {
            return refused
        }
        let now = envelope.time
        let kind = report.intent.kind
        let financial = report.intent.isFinancial
        // A payment whose proposal the payments stage closed (this stage's refusal, recorded
        // there, or its own): the intent has its final response, so a redo says nothing more.
        if financial, let closed = ledger.closedProposal(forIntent: intentID, of: envelope.userID) {
            return .ignored("the proposal of \(intentID) was closed already (\(closed.reason))")
        }
        // A payment or request this stage proposed before (a redo): the payments stage took it,
        // and its hold or its request is on the ledger.
        let held = kind == .sendPayment ? ledger.transfer(forIntent: intentID, of: envelope.userID) : nil
        let asked = kind == .requestPayment ? ledger.request(forIntent: intentID, of: envelope.userID) : nil
        let verdict = confirm(
            report.intent, intentID: intentID, userID: envelope.userID, ledger: ledger,
            directory: directory ?? ledger.directory, proposed: held != nil || asked != nil)
        // Said in the user's locale (the request's, carried on every derived event).
        let said = MessageRenderer(locale: UserLocale.of(envelope)).render(verdict.message)
        // A payment's verdict depends on the user's ledger: the version it saw is recorded.
        let ledgerVersion = financial ? ledger.version(of: envelope.userID) : nil
        guard verdict.code == .ready else {
            // A payment refused goes to the payments stage like a proposal, which records it on
            // the ledger and gives the final response. What the refusal read moves: a redo after
            // a crash or a rebalance (the refusal published, the input not committed) could find
            // the money there by then, the account open, or (in a rollout) other amount rules,
            // and its proposal would be paid beside the refusal already said. Recorded, the redo
            // finds it.
            if financial {
                let refusal = IntentConfirmation(
                    turn: report.turn, intent: report.intent, code: verdict.code, reason: verdict.reason,
                    proposedResponse: said, localized: verdict.message, ledgerVersion: ledgerVersion)
                return StageResult(events: [(.confirmations, derived(envelope, refusal, now))])
            }
            let response = IntentResponse(
                kind: kind, code: verdict.code, reason: verdict.reason, message: said, localized: verdict.message)
            return StageResult(events: [
                (.responses, envelope.response(response, source: source, time: now, intentID: intentID))
            ])
        }
        guard let terms = PaymentTerms(report.intent) else {
            let confirmation = IntentConfirmation(
                turn: report.turn, intent: report.intent, code: .ready, proposedResponse: said,
                localized: verdict.message)
            return StageResult(events: [(.confirmed, derived(envelope, confirmation, now))])
        }
        // A financial intent: the proposal goes to the payments stage first (the worker publishes
        // it, and waits for the broker, before the prompt), then the user is asked.
        let expiresAt = Timestamp(now.addingTimeInterval(Double(confirmationWindow.components.seconds)))
        // A redo binds to the counterparty its first proposal named (on the ledger), whatever
        // the directory says now: the same binding, so the user's answer still decides it.
        let binding = bindingKey.binding(
            terms.binding(
                kind: report.intent.kind, intentID: intentID, userID: envelope.userID, expiresAt: expiresAt,
                counterpartyUserID: held?.payee ?? asked?.payer
                    ?? terms.account.flatMap { (directory ?? ledger.directory).account(handle: $0) }?.userID,
                requestSource: RequestSource.of(envelope)))
        let confirmation = IntentConfirmation(
            turn: report.turn, intent: report.intent, code: .ready, proposedResponse: said, localized: verdict.message,
            binding: binding, ledgerVersion: ledgerVersion)
        let request = ConfirmationRequest(
            intent: report.intent, counterpartyContactID: terms.counterparty?.contactID,
            counterpartyDisplayName: terms.counterparty?.displayName, counterpartyAccount: terms.account,
            amount: terms.money.currencyAmount, proposedResponse: said, localized: verdict.message, binding: binding)
        return StageResult(events: [
            (.confirmations, derived(envelope, confirmation, now)),
            (
                .prompts,
                envelope.derived(
                    type: ConfirmationRequest.type, dataSchema: ConfirmationRequest.dataSchema, source: source,
                    time: now, payload: request)
            ),
        ])
    }

    private func derived(_ envelope: EventEnvelope, _ confirmation: IntentConfirmation, _ now: Date) -> EventEnvelope {
        envelope.derived(
            type: IntentConfirmation.type, dataSchema: IntentConfirmation.dataSchema, source: source, time: now,
            payload: confirmation)
    }

    struct Verdict {
        var code: ResponseCode
        var reason: String?
        /// What to say, before a locale renders it.
        var message: LocalizedMessage

        init(code: ResponseCode, reason: String? = nil, _ key: MessageKey, _ arguments: [String: MessageArgument] = [:])
        {
            self.code = code
            self.reason = reason
            message = LocalizedMessage(key, arguments)
        }
    }

    /// - Parameter proposed: Whether the payments stage took this intent's earlier proposal
    ///   (a redo): its hold or request is on the ledger.
    func confirm(
        _ intent: Intent, intentID: String, userID: String, ledger: Ledger, directory: AccountDirectory,
        proposed: Bool
    ) -> Verdict {
        switch intent {
        case .sendMessage(let message):
            if let service = message.serviceName, unavailableServices.contains(service.lowercased()) {
                return Verdict(
                    code: .failureMessageServiceNotAvailable, reason: "serviceDown", .serviceUnavailable,
                    ["service": .text(service)])
            }
            let names = message.recipients.compactMap { $0.displayName ?? $0.spoken }
            return Verdict(
                code: .ready, .sendMessageConfirm,
                [
                    "recipients": .names(message.groupName.map { [$0] } ?? names),
                    "content": .text(message.content ?? ""),
                ])
        case .searchForMessages:
            return Verdict(code: .ready, .searchingMessages)
        case .setMessageAttribute(let change):
            return Verdict(
                code: .ready, .markMessagesConfirm,
                ["count": .number(change.messageIDs.count), "attribute": .text(change.attribute?.rawValue ?? "?")])
        case .sendPayment(let payment):
            return confirmPayment(
                userID: userID, intentID: intentID, counterparty: payment.payee, amount: payment.currencyAmount,
                ledger: ledger, directory: directory, paysRequestID: payment.paymentRequestID, isRequest: false,
                proposed: proposed)
        case .requestPayment(let request):
            return confirmPayment(
                userID: userID, intentID: intentID, counterparty: request.payer, amount: request.currencyAmount,
                ledger: ledger, directory: directory, paysRequestID: nil, isRequest: true, proposed: proposed)
        }
    }

    private func confirmPayment(
        userID: String, intentID: String, counterparty: Person?, amount: CurrencyAmount?, ledger: Ledger,
        directory: AccountDirectory, paysRequestID: String?, isRequest: Bool, proposed: Bool
    ) -> Verdict {
        guard let amount else { return Verdict(code: .failure, reason: "amountMissing", .amountMissing) }
        let name = MessageArgument.text(counterparty?.displayName ?? counterparty?.spoken ?? "?")
        // Proposed before (a redo after a crash or a rebalance): the payments stage acted on this
        // very proposal, whose hold moved the balance (and reserved the request) checked below, so
        // checking again would refuse what was accepted; and the accounts may have changed since
        // (an account closed), so nothing is checked again. The verdict is the first one; the
        // payments stage takes a proposal once.
        if proposed, let handle = counterparty?.handle {
            return .proposal(
                isRequest ? .requestPaymentConfirm : .sendPaymentConfirm, amount, name: name, account: handle)
        }
        // The resolve stage's own rule (AmountPolicy), checked again here: the
        // policy may have changed since, and confirm is the last gate. Checked before
        // anything the ledger or the accounts say: the rule the user broke is the one said.
        if let violation = amounts.check(amount) {
            let currency = MessageArgument.text(amount.currency)
            let (key, arguments): (MessageKey, [String: MessageArgument]) =
                switch violation {
                case .currencyUnsupported: (.currencyUnsupported, ["currency": currency])
                case .belowMinimum(let minimum):
                    (
                        .amountBelowMinimum,
                        ["minimum": .amount(CurrencyAmount(amount: minimum, currency: amount.currency))]
                    )
                case .aboveMaximum(let maximum):
                    (
                        .amountAboveMaximum,
                        ["maximum": .amount(CurrencyAmount(amount: maximum, currency: amount.currency))]
                    )
                case .tooPrecise(let digits): (.amountTooPrecise, ["currency": currency, "digits": .number(digits)])
                }
            return Verdict(code: violation.responseCode, reason: violation.reason, key, arguments)
        }
        guard let account = directory.accounts[userID] else {
            return Verdict(code: .failureNoBankAccount, .noPaymentAccount)
        }
        guard account.verified else {
            return Verdict(code: .failureCredentialsUnverified, .paymentDetailsUnverified)
        }
        guard let handle = counterparty?.handle, let other = directory.account(handle: handle) else {
            return Verdict(code: .failure, reason: "counterpartyNoAccount", .counterpartyCannotReceive, ["name": name])
        }
        guard other.userID != userID else {
            return Verdict(code: .failure, reason: "selfPayment", .cannotPaySelf)
        }
        if isRequest {
            return .proposal(.requestPaymentConfirm, amount, name: name, account: handle)
        }
        if let requestID = paysRequestID,
            ledger.whyNotPayable(
                requestID, payer: userID, payee: other.userID, money: Money(amount),
                transferID: Ledger.transferID(userID: userID, intentID: intentID)) != nil
        {
            return Verdict(
                code: .failurePaymentRequestNotPayable, reason: "paymentRequestNotPending", .paymentRequestNotOpen)
        }
        let balance = ledger.availableBalance(of: userID, amount.currency)
        guard balance >= Money(amount) else {
            return Verdict(
                code: .failureInsufficientFunds, .insufficientBalance, ["balance": .amount(balance.currencyAmount)])
        }
        return .proposal(.sendPaymentConfirm, amount, name: name, account: handle)
    }
}

extension ConfirmStage.Verdict {
    /// A payment's proposal: the amount, to whom, and the account it goes to.
    static func proposal(_ key: MessageKey, _ amount: CurrencyAmount, name: MessageArgument, account: String) -> Self {
        Self(code: .ready, key, ["amount": .amount(amount), "name": name, "account": .text(account)])
    }
}
