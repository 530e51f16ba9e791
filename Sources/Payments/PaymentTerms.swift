public import IntentEvents
public import Intents

/// The counterparty, amount, note and paid request of a financial intent:
/// what the confirm stage binds and the payments stage moves.
public struct PaymentTerms: Sendable {
    public var counterparty: Person?
    public var money: Money
    public var note: String?
    public var paysRequestID: String?

    /// The counterparty's account: the handle resolution took from the matched contact.
    public var account: String? { counterparty?.handle }

    /// The terms a user's answer binds to; `counterpartyUserID` is the owner of ``account`` as
    /// the directory says when the proposal is made, `requestSource` the voice service that asked.
    public func binding(
        kind: Intent.Kind, intentID: String, userID: String, expiresAt: Timestamp, counterpartyUserID: String?,
        requestSource: String?
    ) -> BindingTerms {
        BindingTerms(
            kind: kind, intentID: intentID, userID: userID, counterpartyContactID: counterparty?.contactID,
            counterpartyAccount: account, money: money, note: note, expiresAt: expiresAt,
            counterpartyUserID: counterpartyUserID, requestSource: requestSource)
    }

    public init?(_ intent: Intent) {
        switch intent {
        case .sendPayment(let payment):
            guard let amount = payment.currencyAmount else { return nil }
            self.init(
                counterparty: payment.payee, money: Money(amount), note: payment.note,
                paysRequestID: payment.paymentRequestID)
        case .requestPayment(let request):
            guard let amount = request.currencyAmount else { return nil }
            self.init(counterparty: request.payer, money: Money(amount), note: request.note, paysRequestID: nil)
        case .sendMessage, .searchForMessages, .setMessageAttribute:
            return nil
        }
    }

    public init(counterparty: Person?, money: Money, note: String?, paysRequestID: String?) {
        self.counterparty = counterparty
        self.money = money
        self.note = note
        self.paysRequestID = paysRequestID
    }
}
