public import Foundation
import IntentEvents
public import IntentResolution
public import Intents

/// SiriKit's confirm stage as a pure function: the final check that a
/// resolved intent can be done, and the response the user would see.
/// Financial intents that pass go to the payments stage (which reserves the
/// money and asks the user); messaging intents go to the handle stage;
/// anything that cannot be done ends here with its response code.
public struct ConfirmStage: Sendable {
    public var amounts: AmountPolicy
    /// Messaging services that are down right now (operators set this).
    public var unavailableServices: Set<String>
    public let source: String

    public init(
        amounts: AmountPolicy = .default, unavailableServices: Set<String> = [], source: String = "/workers/confirm"
    ) {
        self.amounts = amounts
        self.unavailableServices = Set(unavailableServices.map { $0.lowercased() })
        self.source = source
    }

    public func process(key: String?, value: [UInt8]?, ledger: Ledger, now: Date = Date()) -> StageResult {
        let envelope: EventEnvelope
        let report: IntentResolutionReport
        do throws(EventDecodingError) {
            envelope = try IncomingEvent.decode(key: key, value: value, types: [IntentResolutionReport.resolvedType])
            report = try envelope.decodeData(as: IntentResolutionReport.self)
        } catch {
            return .rejected(error)
        }
        let verdict = confirm(report.intent, userID: envelope.userID, ledger: ledger)
        let confirmation = IntentConfirmation(
            turn: report.turn, intent: report.intent, code: verdict.code, reason: verdict.reason,
            proposedResponse: verdict.message)
        let intentID = envelope.intentID!
        let confirmed = envelope.derived(
            type: IntentConfirmation.type, dataSchema: IntentConfirmation.dataSchema, source: source, time: now,
            payload: confirmation)
        guard verdict.code == .ready else {
            let response = IntentResponse(
                kind: report.intent.kind, code: verdict.code, reason: verdict.reason, message: verdict.message)
            return StageResult(events: [
                (.responses, envelope.response(response, source: source, time: now, intentID: intentID))
            ])
        }
        return StageResult(events: [(report.intent.isFinancial ? .confirmations : .confirmed, confirmed)])
    }

    struct Verdict {
        var code: ResponseCode
        var reason: String?
        var message: String
    }

    func confirm(_ intent: Intent, userID: String, ledger: Ledger) -> Verdict {
        switch intent {
        case .sendMessage(let message):
            if let service = message.serviceName, unavailableServices.contains(service.lowercased()) {
                return Verdict(
                    code: .failureMessageServiceNotAvailable, reason: "serviceDown",
                    message: "\(service) is not available right now")
            }
            let names = message.recipients.compactMap { $0.displayName ?? $0.spoken }
            let to = message.groupName ?? names.joined(separator: ", ")
            return Verdict(code: .ready, message: "Send to \(to): \"\(message.content ?? "")\"?")
        case .searchForMessages:
            return Verdict(code: .ready, message: "Searching your messages.")
        case .setMessageAttribute(let change):
            return Verdict(
                code: .ready,
                message: "Mark \(change.messageIDs.count) message(s) as \(change.attribute?.rawValue ?? "?").")
        case .sendPayment(let payment):
            return confirmPayment(
                userID: userID, counterparty: payment.payee, amount: payment.currencyAmount, ledger: ledger,
                paysRequestID: payment.paymentRequestID, isRequest: false)
        case .requestPayment(let request):
            return confirmPayment(
                userID: userID, counterparty: request.payer, amount: request.currencyAmount, ledger: ledger,
                paysRequestID: nil, isRequest: true)
        }
    }

    private func confirmPayment(
        userID: String, counterparty: Person?, amount: CurrencyAmount?, ledger: Ledger, paysRequestID: String?,
        isRequest: Bool
    ) -> Verdict {
        guard let amount else { return Verdict(code: .failure, reason: "amountMissing", message: "How much?") }
        guard let account = ledger.accounts[userID] else {
            return Verdict(code: .failureNoBankAccount, message: "Set up payments in the app first.")
        }
        guard account.verified else {
            return Verdict(code: .failureCredentialsUnverified, message: "Verify your payment details in the app.")
        }
        guard let limits = amounts.currencies[amount.currency] else {
            return Verdict(
                code: .failurePaymentsCurrencyUnsupported, reason: "currencyUnsupported",
                message: "\(amount.currency) is not supported.")
        }
        if amount.amount < limits.minimum {
            return Verdict(
                code: .failurePaymentsAmountBelowMinimum,
                message: "The minimum is \(limits.minimum) \(amount.currency).")
        }
        if amount.amount > limits.maximum {
            return Verdict(
                code: .failurePaymentsAmountAboveMaximum,
                message: "The maximum is \(limits.maximum) \(amount.currency).")
        }
        let name = counterparty?.displayName ?? counterparty?.spoken ?? "them"
        guard let handle = counterparty?.handle, let other = ledger.account(handle: handle) else {
            return Verdict(code: .failure, reason: "counterpartyNoAccount", message: "\(name) cannot receive payments.")
        }
        guard other.userID != userID else {
            return Verdict(code: .failure, reason: "selfPayment", message: "You cannot pay yourself.")
        }
        if isRequest {
            return Verdict(code: .ready, message: "Request \(amount) from \(name)?")
        }
        if let requestID = paysRequestID {
            guard let request = ledger.requests[requestID], request.status == .pending, request.payer == userID,
                request.requester == other.userID, request.money == Money(amount)
            else {
                return Verdict(
                    code: .failure, reason: "paymentRequestNotPending",
                    message: "That payment request is not open for this amount.")
            }
        }
        guard ledger.availableBalance(of: userID, amount.currency) >= Money(amount) else {
            return Verdict(
                code: .failureInsufficientFunds,
                message: "Your balance is \(ledger.availableBalance(of: userID, amount.currency)).")
        }
        return Verdict(code: .ready, message: "Send \(amount) to \(name)?")
    }
}
