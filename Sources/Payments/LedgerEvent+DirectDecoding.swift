public import IntentEvents
public import Intents

extension LedgerEvent {
    /// The event of a ledger record's data. Every follower of the ledger and every
    /// audit reads each ledger record, so this reads the parsed JSON directly
    /// (``init(json:)``) rather than through `Codable`'s containers, which cost
    /// the audit a third of its time. Anything unexpected takes the `Codable`
    /// path, whose error is the one reported: both accept exactly the same data
    /// (`LedgerEventDecodingTests`).
    public static func decode(from envelope: EventEnvelope) throws(EventDecodingError) -> LedgerEvent {
        if let event = LedgerEvent(json: envelope.data) { return event }
        return try envelope.decodeData(as: LedgerEvent.self)
    }

    /// Decodes `json` as strict decoding of the synthesized `Codable` conformance does
    /// (required `id`, `kind`, `userID` and `entries`, the rest optional; unknown fields
    /// and `null` refused, since strict decoding finds `null` in no re-encoding); nil
    /// for anything else.
    init?(json: JSONValue) {
        guard case .object(let members) = json else { return nil }
        var id: String?
        var kind: Kind?
        var userID: String?
        var entries: [LedgerEntry]?
        var event = LedgerEvent(id: "", kind: .deposit, userID: "")
        for (key, value) in members {
            switch key {
            case "id":
                guard let text = value.text else { return nil }
                id = text
            case "kind":
                guard let text = value.text, let parsed = Kind(rawValue: text) else { return nil }
                kind = parsed
            case "userID":
                guard let text = value.text else { return nil }
                userID = text
            case "entries":
                guard case .array(let items) = value else { return nil }
                var parsed: [LedgerEntry] = []
                parsed.reserveCapacity(items.count)
                for item in items {
                    guard let entry = LedgerEntry(json: item) else { return nil }
                    parsed.append(entry)
                }
                entries = parsed
            case "intentID": guard value.optionalText(into: &event.intentID) else { return nil }
            case "transferID": guard value.optionalText(into: &event.transferID) else { return nil }
            case "requestID": guard value.optionalText(into: &event.requestID) else { return nil }
            case "counterpartyUserID": guard value.optionalText(into: &event.counterpartyUserID) else { return nil }
            case "counterpartyContactID":
                guard value.optionalText(into: &event.counterpartyContactID) else { return nil }
            case "counterpartyAccount": guard value.optionalText(into: &event.counterpartyAccount) else { return nil }
            case "note": guard value.optionalText(into: &event.note) else { return nil }
            case "reason": guard value.optionalText(into: &event.reason) else { return nil }
            case "decidedBy": guard value.optionalText(into: &event.decidedBy) else { return nil }
            case "amount":
                guard let amount = CurrencyAmount(json: value) else { return nil }
                event.amount = amount
            case "expiresAt":
                guard let time = value.timestamp else { return nil }
                event.expiresAt = time
            case "decidedAt":
                guard let time = value.timestamp else { return nil }
                event.decidedAt = time
            case "verified":
                guard case .bool(let flag) = value else { return nil }
                event.verified = flag
            case "handles":
                guard case .array(let items) = value else { return nil }
                var handles: [String] = []
                for item in items {
                    guard let text = item.text else { return nil }
                    handles.append(text)
                }
                event.handles = handles
            default: return nil
            }
        }
        guard let id, let kind, let userID, let entries else { return nil }
        event.id = id
        event.kind = kind
        event.userID = userID
        event.entries = entries
        self = event
    }
}

extension LedgerEntry {
    init?(json: JSONValue) {
        guard case .object(let members) = json, members.count == 3, let account = members["account"]?.text,
            let side = members["side"]?.text.flatMap(Side.init(rawValue:)),
            let amount = members["amount"].flatMap(CurrencyAmount.init(json:))
        else { return nil }
        self.init(account: account, side: side, amount: amount)
    }
}

extension CurrencyAmount {
    /// An amount as JSON holds it (`{"amount": "12.50", "currency": "EUR"}`); nil for anything else.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, members.count == 2,
            let amount = members["amount"]?.text.flatMap(DecimalAmount.init), let currency = members["currency"]?.text,
            currency.utf8.count == 3, currency.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { return nil }
        self.init(amount: amount, currency: currency)
    }
}

extension JSONValue {
    fileprivate var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Sets `target` from a string; false for anything else (`null` included).
    fileprivate func optionalText(into target: inout String?) -> Bool {
        guard case .string(let text) = self else { return false }
        target = text
        return true
    }

    fileprivate var timestamp: Timestamp? { text.flatMap(EventTime.parse).map(Timestamp.init) }
}
