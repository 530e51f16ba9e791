/// Every sentence the assistant says to a user, by a stable key. A worker renders
/// it in the user's locale (the `Localization` catalogs), and the response also
/// carries the key and its arguments (``LocalizedMessage``), so a client can render
/// it in its own language. Keys are part of the app-state API: added, never renamed.
public enum MessageKey: String, CaseIterable, Codable, Sendable, Hashable {
    // The confirm stage's proposals and refusals.
    /// `recipients` (names), `content` (text).
    case sendMessageConfirm = "confirm.sendMessage"
    case searchingMessages = "confirm.searchMessages"
    /// `count` (number), `attribute` (text: read, unread, flagged, unflagged).
    case markMessagesConfirm = "confirm.markMessages"
    /// `service` (text).
    case serviceUnavailable = "confirm.serviceUnavailable"
    case amountMissing = "payment.amountMissing"
    case noPaymentAccount = "payment.noAccount"
    case paymentDetailsUnverified = "payment.detailsUnverified"
    /// `currency` (text).
    case currencyUnsupported = "payment.currencyUnsupported"
    /// `minimum` (amount).
    case amountBelowMinimum = "payment.belowMinimum"
    /// `maximum` (amount).
    case amountAboveMaximum = "payment.aboveMaximum"
    /// `currency` (text), `digits` (number).
    case amountTooPrecise = "payment.tooPrecise"
    /// `name` (text).
    case counterpartyCannotReceive = "payment.counterpartyCannotReceive"
    case cannotPaySelf = "payment.selfPayment"
    /// `amount` (amount), `name` (text), `account` (text).
    case requestPaymentConfirm = "payment.requestConfirm"
    case paymentRequestNotOpen = "payment.requestNotOpen"
    /// `balance` (amount).
    case insufficientBalance = "payment.insufficientBalance"
    /// `amount` (amount), `name` (text), `account` (text).
    case sendPaymentConfirm = "payment.sendConfirm"

    // The payments stage's answers.
    /// `amount` (amount).
    case paymentSent = "payment.sent"
    /// `amount` (amount).
    case paymentRequested = "payment.requested"
    case paymentDeclinedByUser = "payment.declinedByUser"
    case confirmationExpired = "payment.confirmationExpired"
    case confirmationMismatch = "payment.confirmationMismatch"
    case payeeCannotReceive = "payment.payeeCannotReceive"
    case payeeAccountChanged = "payment.payeeAccountChanged"
    case notEnoughMoney = "payment.notEnoughMoney"
    /// The amount rules refused it (the confirm stage said which, in `reason`).
    case amountNotAllowed = "payment.amountNotAllowed"
    /// A request refused because the requester has too many open (to this payer, or in all).
    case tooManyOpenRequests = "payment.tooManyOpenRequests"
    /// `reason` (text: the machine-readable reason).
    case nothingSent = "payment.nothingSent"

    // The handle stage's answers.
    case messageSending = "message.sending"
    case messageDone = "message.done"
    /// `count` (number).
    case messagesFound = "message.found"
    /// `ids` (names).
    case noSuchMessage = "message.noSuchMessage"
    /// `code` (text: the response code).
    case messageFailed = "message.failed"

    // The resolve stage's refusal of a signed request that starts an intent.
    /// `reason` (text: the dead letter's reason, e.g. schema_invalid).
    case requestRefused = "request.refused"

    // What a voice service asks and answers, worded from a resolution report (the
    // simulated voice service; a real one may word its own).
    /// `choices` (choices: the numbered candidates).
    case promptWhich = "prompt.which"
    /// `name` (text).
    case promptDidYouMean = "prompt.didYouMean"
    case promptWho = "prompt.who"
    /// `parameter` (text: the parameter's path).
    case promptValue = "prompt.value"
    /// `reason` (text: the machine-readable reason).
    case promptUnsupported = "prompt.unsupported"
    /// The person named is not among the user's contacts.
    case promptNoContact = "prompt.noContact"
    case answerYes = "answer.yes"
    case answerNo = "answer.no"
}
