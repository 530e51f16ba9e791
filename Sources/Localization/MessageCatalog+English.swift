import Intents

extension MessageCatalog {
    /// English, the fallback for every other language.
    public static let english = MessageCatalog(
        language: "en",
        sentences: [
            .sendMessageConfirm: "Send to {recipients}: “{content}”?",
            .searchingMessages: "Searching your messages.",
            .markMessagesConfirm: "Mark {count} message(s) as {attribute}?",
            .serviceUnavailable: "{service} is not available right now.",
            .amountMissing: "How much?",
            .noPaymentAccount: "Set up payments in the app first.",
            .paymentDetailsUnverified: "Verify your payment details in the app.",
            .currencyUnsupported: "{currency} is not supported.",
            .amountBelowMinimum: "The minimum is {minimum}.",
            .amountAboveMaximum: "The maximum is {maximum}.",
            .amountTooPrecise: "{currency} amounts have at most {digits} decimal places.",
            .counterpartyCannotReceive: "{name} cannot receive payments.",
            .cannotPaySelf: "You cannot pay yourself.",
            .requestPaymentConfirm: "Request {amount} from {name} ({account})?",
            .paymentRequestNotOpen: "That payment request is not open for this amount.",
            .insufficientBalance: "Your balance is {balance}.",
            .sendPaymentConfirm: "Send {amount} to {name} ({account})?",
            .paymentSent: "Sent {amount}.",
            .paymentRequested: "Requested {amount}.",
            .paymentDeclinedByUser: "OK, I won't send it.",
            .confirmationExpired: "The confirmation timed out; nothing was sent.",
            .confirmationMismatch: "That confirmation doesn't match this payment; nothing was sent.",
            .payeeCannotReceive: "They cannot receive payments.",
            .payeeAccountChanged: "Their payment account changed since you confirmed; nothing was sent.",
            .notEnoughMoney: "You don't have enough money for this.",
            .nothingSent: "Nothing was sent ({reason}).",
            .messageSending: "Sending…",
            .messageDone: "Done.",
            .messagesFound: "Found {count} message(s).",
            .noSuchMessage: "No such message: {ids}.",
            .messageFailed: "That didn't work ({code}).",
        ])
}
