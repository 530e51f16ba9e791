public import IntentEvents

/// Intents travel inside every confirmation, confirmation request and
/// resolution report, so the confirm and handle workers write one per record:
/// directly, in canonical key order, with the intent's `kind` among its own
/// fields as the `Encodable` form flattens it. `IntentCanonicalTests` checks
/// the bytes against the encoder for every kind and awkward strings.
extension Intent: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        switch self {
        case .sendMessage(let intent):
            object.string("content", intent.content, into: &output)
            object.string("groupName", intent.groupName, into: &output)
            object.string("kind", kind.rawValue, into: &output)
            object.people("recipients", intent.recipients, into: &output)
            object.string("serviceName", intent.serviceName, into: &output)
        case .searchForMessages(let intent):
            object.strings("attributes", intent.attributes?.map(\.rawValue), into: &output)
            if let dateRange = intent.dateRange {
                object.key("dateRange", into: &output)
                dateRange.writeCanonicalJSON(into: &output)
            }
            object.strings("keywords", intent.keywords, into: &output)
            object.string("kind", kind.rawValue, into: &output)
            object.people("recipients", intent.recipients, into: &output)
            object.people("senders", intent.senders, into: &output)
        case .setMessageAttribute(let intent):
            object.string("attribute", intent.attribute?.rawValue, into: &output)
            object.string("kind", kind.rawValue, into: &output)
            object.strings("messageIDs", intent.messageIDs, into: &output)
        case .sendPayment(let intent):
            object.amount("currencyAmount", intent.currencyAmount, into: &output)
            object.string("kind", kind.rawValue, into: &output)
            object.string("note", intent.note, into: &output)
            object.person("payee", intent.payee, into: &output)
            object.string("paymentRequestID", intent.paymentRequestID, into: &output)
        case .requestPayment(let intent):
            object.amount("currencyAmount", intent.currencyAmount, into: &output)
            object.string("kind", kind.rawValue, into: &output)
            object.string("note", intent.note, into: &output)
            object.person("payer", intent.payer, into: &output)
        }
        object.close(into: &output)
    }
}

extension Person {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.string("contactID", contactID, into: &output)
        object.string("displayName", displayName, into: &output)
        object.string("handle", handle, into: &output)
        object.string("spoken", spoken, into: &output)
        object.close(into: &output)
    }
}

extension DateRange {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.string("end", end.map(EventTime.format), into: &output)
        object.string("start", start.map(EventTime.format), into: &output)
        object.close(into: &output)
    }
}

extension CanonicalObjectWriter {
    /// An optional person member.
    public mutating func person(_ key: StaticString, _ person: Person?, into output: inout [UInt8]) {
        guard let person else { return }
        self.key(key, into: &output)
        person.writeCanonicalJSON(into: &output)
    }

    /// An optional array of people.
    public mutating func people(_ key: StaticString, _ people: [Person]?, into output: inout [UInt8]) {
        array(key, people, into: &output) { $0.writeCanonicalJSON(into: &$1) }
    }

    /// An optional amount.
    public mutating func amount(_ key: StaticString, _ amount: CurrencyAmount?, into output: inout [UInt8]) {
        guard let amount else { return }
        self.key(key, into: &output)
        amount.writeCanonicalJSON(into: &output)
    }

    /// An optional intent.
    public mutating func intent(_ key: StaticString, _ intent: Intent?, into output: inout [UInt8]) {
        guard let intent else { return }
        self.key(key, into: &output)
        intent.writeCanonicalJSON(into: &output)
    }
}
