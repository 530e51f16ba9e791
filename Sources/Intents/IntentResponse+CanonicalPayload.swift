public import IntentEvents

/// Every intent ends in one of these, written by the confirm, payments and
/// handle workers once per intent: written directly, without the generic
/// encoder (`IntentResponseCanonicalTests` checks the bytes).
extension IntentResponse: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.string("code", code.rawValue, into: &output)
        object.string("kind", kind.rawValue, into: &output)
        if let ledgerVersion { object.integer("ledgerVersion", ledgerVersion, into: &output) }
        object.string("message", message, into: &output)
        object.arguments("messageArguments", messageArguments, into: &output)
        object.strings("messageIDs", messageIDs, into: &output)
        object.string("messageKey", messageKey?.rawValue, into: &output)
        object.string("paymentRequestID", paymentRequestID, into: &output)
        object.string("reason", reason, into: &output)
        object.string("transferID", transferID, into: &output)
        object.close(into: &output)
    }
}

extension CurrencyAmount {
    /// `{"amount":"12.50","currency":"CNY"}`, as its `Encodable` form writes it.
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.unescapedString("amount", into: &output) { amount.appendDescription(to: &$0) }
        object.string("currency", currency, into: &output)
        object.close(into: &output)
    }
}
