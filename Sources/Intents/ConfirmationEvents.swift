public import IntentEvents

/// `intent.confirmed.v1`: the confirm stage's verdict on a resolved intent,
/// with the response the user would see. `ready` goes on to be handled;
/// any other code ends the intent (it is also published as its response).
public struct IntentConfirmation: Codable, Sendable, Hashable {
    public static let type = "intent.confirmed.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:intent.confirmed:v1"

    public var turn: Int
    public var intent: Intent
    public var code: ResponseCode
    /// Machine-readable detail of a failure (`payeeNoAccount`, `serviceDown`, ...).
    public var reason: String?
    /// What the assistant would say, in the user's locale, e.g. "Send CN¥100.00 to 孙波?".
    public var proposedResponse: String
    /// `proposedResponse` by key and arguments (``LocalizedMessage``).
    public var messageKey: MessageKey?
    public var messageArguments: [String: MessageArgument]?
    /// For a financial intent that is ready: the binding the user's answer must echo.
    public var binding: ConfirmationBinding?
    /// For a financial intent: how many ledger events of the user the decision had seen
    /// (``LedgerVersion``), so `intentctl replay confirm` re-derives it on that ledger.
    public var ledgerVersion: Int?

    public init(
        turn: Int, intent: Intent, code: ResponseCode, reason: String? = nil, proposedResponse: String,
        localized: LocalizedMessage? = nil, binding: ConfirmationBinding? = nil, ledgerVersion: Int? = nil
    ) {
        self.turn = turn
        self.intent = intent
        self.code = code
        self.reason = reason
        self.proposedResponse = proposedResponse
        messageKey = localized?.key
        messageArguments = localized?.arguments.isEmpty == false ? localized?.arguments : nil
        self.binding = binding
        self.ledgerVersion = ledgerVersion
    }
}

/// What binds a user's confirmation to exactly one proposal: an HMAC over
/// the kind, intent id, user id, counterparty contact and account, amount,
/// currency, note and expiry.
/// The voice service echoes it in the answer; a changed amount, payee,
/// user or intent, or a late answer, no longer matches.
public struct ConfirmationBinding: Codable, Sendable, Hashable {
    /// The longest a user may take to answer, counted from the intent's time.
    /// The payments stage refuses a proposal that asks for more (a forged
    /// "expires in 2099"), and the confirm stage cannot be configured past it.
    public static let maximumWindow: Duration = .seconds(600)

    /// Lowercase hex of the HMAC-SHA256.
    public var digest: String
    public var expiresAt: Timestamp

    public init(digest: String, expiresAt: Timestamp) {
        self.digest = digest
        self.expiresAt = expiresAt
    }
}

/// `payment.confirmation.requested.v1`, on the prompts topic: the confirm
/// stage asks the user to confirm a payment or payment request. It is
/// published only after the proposal reached the payments stage's topic, so
/// the payments stage always sees the proposal (and reserves the money)
/// before the answer; money moves only on a matching, timely "confirmed".
public struct ConfirmationRequest: Codable, Sendable, Hashable {
    public static let type = "payment.confirmation.requested.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:payment.confirmation.requested:v1"

    public var intent: Intent
    public var counterpartyContactID: String?
    public var counterpartyDisplayName: String?
    /// The account that will be credited (or asked to pay), shown to the user and
    /// covered by the binding: "Send 200 CNY to 孙波 (sunbo@pay.example)?".
    public var counterpartyAccount: String?
    public var amount: CurrencyAmount
    /// The question, in the user's locale.
    public var proposedResponse: String
    /// `proposedResponse` by key and arguments (``LocalizedMessage``).
    public var messageKey: MessageKey?
    public var messageArguments: [String: MessageArgument]?
    public var binding: ConfirmationBinding

    public init(
        intent: Intent, counterpartyContactID: String?, counterpartyDisplayName: String?,
        counterpartyAccount: String? = nil, amount: CurrencyAmount, proposedResponse: String,
        localized: LocalizedMessage? = nil, binding: ConfirmationBinding
    ) {
        messageKey = localized?.key
        messageArguments = localized?.arguments.isEmpty == false ? localized?.arguments : nil
        self.intent = intent
        self.counterpartyContactID = counterpartyContactID
        self.counterpartyDisplayName = counterpartyDisplayName
        self.counterpartyAccount = counterpartyAccount
        self.amount = amount
        self.proposedResponse = proposedResponse
        self.binding = binding
    }
}

/// `payment.confirmation.v1`, from the voice service to the confirmations
/// topic (keyed by user id, envelope `intentid` set): the user's answer.
public struct ConfirmationAnswer: Codable, Sendable, Hashable {
    public static let type = "payment.confirmation.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:payment.confirmation:v1"

    public enum Decision: String, Codable, Sendable, Hashable { case confirmed, declined }

    public var decision: Decision
    /// Echoed from the confirmation request.
    public var binding: ConfirmationBinding

    public init(decision: Decision, binding: ConfirmationBinding) {
        self.decision = decision
        self.binding = binding
    }
}

/// `intent.response.v1`: how an intent ended (or that it is in progress).
public struct IntentResponse: Codable, Sendable, Hashable {
    public static let type = "intent.response.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:intent.response:v1"

    public var kind: Intent.Kind
    public var code: ResponseCode
    public var reason: String?
    /// What the user hears, in their locale.
    public var message: String
    /// `message` by key and arguments (``LocalizedMessage``), for a client that says it in
    /// its own language; nil from writers that predate them.
    public var messageKey: MessageKey?
    public var messageArguments: [String: MessageArgument]?
    public var transferID: String?
    public var paymentRequestID: String?
    public var messageIDs: [String]?
    /// How many ledger events of the user the confirm stage's refusal of a financial intent
    /// had seen, on responses it said itself (records written before its refusals went to
    /// the payments stage; a refusal now carries it on its ``IntentConfirmation/ledgerVersion``).
    public var ledgerVersion: Int?

    public init(
        kind: Intent.Kind, code: ResponseCode, reason: String? = nil, message: String,
        localized: LocalizedMessage? = nil, transferID: String? = nil, paymentRequestID: String? = nil,
        messageIDs: [String]? = nil, ledgerVersion: Int? = nil
    ) {
        self.kind = kind
        self.code = code
        self.reason = reason
        self.message = message
        messageKey = localized?.key
        messageArguments = localized?.arguments.isEmpty == false ? localized?.arguments : nil
        self.transferID = transferID
        self.paymentRequestID = paymentRequestID
        self.messageIDs = messageIDs
        self.ledgerVersion = ledgerVersion
    }
}

/// `payment.request.decline.v1`, from the voice service to the confirmations
/// topic (keyed by the payer, signed): the payer declines a pending payment
/// request. Paying one is a send payment with `paymentRequestID`.
public struct PaymentRequestDecline: Codable, Sendable, Hashable {
    public static let type = "payment.request.decline.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:payment.request.decline:v1"

    public var paymentRequestID: String

    public init(paymentRequestID: String) {
        self.paymentRequestID = paymentRequestID
    }
}
