public import IntentEvents

/// The confirm worker writes a confirmation for every resolved intent and a
/// request and binding for every payment: directly, in canonical key order
/// (`ConfirmationCanonicalTests` checks the bytes against the encoder).
extension IntentConfirmation: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.binding("binding", binding, into: &output)
        object.string("code", code.rawValue, into: &output)
        object.intent("intent", intent, into: &output)
        if let ledgerVersion { object.integer("ledgerVersion", ledgerVersion, into: &output) }
        object.arguments("messageArguments", messageArguments, into: &output)
        object.string("messageKey", messageKey?.rawValue, into: &output)
        object.string("proposedResponse", proposedResponse, into: &output)
        object.string("reason", reason, into: &output)
        object.integer("turn", turn, into: &output)
        object.close(into: &output)
    }
}

extension ConfirmationRequest: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.amount("amount", amount, into: &output)
        object.binding("binding", binding, into: &output)
        object.string("counterpartyAccount", counterpartyAccount, into: &output)
        object.string("counterpartyContactID", counterpartyContactID, into: &output)
        object.string("counterpartyDisplayName", counterpartyDisplayName, into: &output)
        object.intent("intent", intent, into: &output)
        object.arguments("messageArguments", messageArguments, into: &output)
        object.string("messageKey", messageKey?.rawValue, into: &output)
        object.string("proposedResponse", proposedResponse, into: &output)
        object.close(into: &output)
    }
}

extension ConfirmationBinding {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.string("digest", digest, into: &output)
        object.time("expiresAt", expiresAt, into: &output)
        object.close(into: &output)
    }
}

extension IntentResolutionReport: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.string("contactsVersion", contactsVersion, into: &output)
        object.intent("intent", intent, into: &output)
        object.array("parameters", parameters, into: &output) { $0.writeCanonicalJSON(into: &$1) }
        object.string("resolverConfiguration", resolverConfiguration, into: &output)
        object.integer("turn", turn, into: &output)
        object.close(into: &output)
    }
}

extension ParameterResolution {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.strings("alternatives", alternatives, into: &output)
        object.array("candidates", candidates, into: &output) { candidate, output in
            var item = CanonicalObjectWriter(into: &output)
            item.string("contactID", candidate.contactID, into: &output)
            item.string("displayName", candidate.displayName, into: &output)
            item.close(into: &output)
        }
        object.string("message", message, into: &output)
        object.arguments("messageArguments", messageArguments, into: &output)
        object.string("messageKey", messageKey?.rawValue, into: &output)
        object.string("outcome", outcome.rawValue, into: &output)
        object.string("parameter", parameter, into: &output)
        object.string("reason", reason, into: &output)
        object.close(into: &output)
    }
}

extension CanonicalObjectWriter {
    /// An optional confirmation binding.
    public mutating func binding(_ key: StaticString, _ binding: ConfirmationBinding?, into output: inout [UInt8]) {
        guard let binding else { return }
        self.key(key, into: &output)
        binding.writeCanonicalJSON(into: &output)
    }
}
