public import IntentEvents
public import Intents

extension IntentResponse {
    /// A response saying `message` in the locale of `cause`, the event it answers
    /// (``UserLocale``), and carrying its key and arguments for the app.
    public init(
        kind: Intent.Kind, code: ResponseCode, reason: String? = nil, saying message: LocalizedMessage,
        answering cause: EventEnvelope, transferID: String? = nil, paymentRequestID: String? = nil,
        messageIDs: [String]? = nil
    ) {
        self.init(
            kind: kind, code: code, reason: reason,
            message: MessageRenderer(locale: UserLocale.of(cause)).render(message), localized: message,
            transferID: transferID, paymentRequestID: paymentRequestID, messageIDs: messageIDs)
    }
}
