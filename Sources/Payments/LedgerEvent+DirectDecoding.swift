public import IntentEvents
import Intents

extension LedgerEvent: DirectlyReadPayload {
    /// The event of a ledger record's data. Every follower of the ledger and every
    /// audit reads each ledger record, so it is read directly (``read(from:)``, through
    /// ``EventEnvelope/decodeData(as:)``'s ``DirectlyReadPayload`` path): from the record's
    /// bytes when the envelope kept them, else from the parsed JSON, rather than through
    /// `Codable`'s containers, which cost the audit a third of its time. Anything unexpected
    /// takes the `Codable` path, whose error is the one reported: both accept exactly the
    /// same data (`LedgerEventDecodingTests`).
    public static func decode(from envelope: EventEnvelope) throws(EventDecodingError) -> LedgerEvent {
        try envelope.decodeData(as: LedgerEvent.self)
    }

    /// Reads the data as strict decoding of the synthesized `Codable` conformance does
    /// (required `id`, `kind`, `userID` and `entries`, the rest optional; unknown fields
    /// and `null` refused, since strict decoding finds `null` in no re-encoding); refuses
    /// anything else, and a repeated key.
    public static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> LedgerEvent {
        var id: String?
        var kind: Kind?
        var userID: String?
        var entries: [LedgerEntry]?
        var event = LedgerEvent(id: "", kind: .deposit, userID: "")
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "id": try setOnce(&id, value.readString())
            case "kind":
                guard let parsed = Kind(rawValue: try value.readString()) else { throw JSONRefusal() }
                try setOnce(&kind, parsed)
            case "userID": try setOnce(&userID, value.readString())
            case "entries":
                var parsed: [LedgerEntry] = []
                parsed.reserveCapacity(2)
                try value.readArray { (item) throws(JSONRefusal) in parsed.append(try LedgerEntry.read(from: &item)) }
                try setOnce(&entries, parsed)
            case "intentID": try setOnce(&event.intentID, value.readString())
            case "transferID": try setOnce(&event.transferID, value.readString())
            case "requestID": try setOnce(&event.requestID, value.readString())
            case "requestSource": try setOnce(&event.requestSource, value.readString())
            case "counterpartyUserID": try setOnce(&event.counterpartyUserID, value.readString())
            case "counterpartyContactID": try setOnce(&event.counterpartyContactID, value.readString())
            case "counterpartyAccount": try setOnce(&event.counterpartyAccount, value.readString())
            case "note": try setOnce(&event.note, value.readString())
            case "owner": try setOnce(&event.owner, value.readString())
            case "reason": try setOnce(&event.reason, value.readString())
            case "decidedBy": try setOnce(&event.decidedBy, value.readString())
            case "amount": try setOnce(&event.amount, CurrencyAmount.read(from: &value))
            case "expiresAt": try setOnce(&event.expiresAt, Timestamp.read(from: &value))
            case "decidedAt": try setOnce(&event.decidedAt, Timestamp.read(from: &value))
            case "verified": try setOnce(&event.verified, value.readBool())
            case "accountVersion":
                guard let version = Int(exactly: try value.readInteger()) else { throw JSONRefusal() }
                try setOnce(&event.accountVersion, version)
            case "handles": try setOnce(&event.handles, readStrings(&value))
            default: throw JSONRefusal()
            }
        }
        guard let id, let kind, let userID, let entries else { throw JSONRefusal() }
        event.id = id
        event.kind = kind
        event.userID = userID
        event.entries = entries
        return event
    }
}

extension LedgerEntry {
    /// Exactly `account`, `side` and `amount`, each once.
    static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> LedgerEntry {
        var account: String?
        var side: Side?
        var amount: CurrencyAmount?
        try reader.readObject { (key, value) throws(JSONRefusal) in
            switch key {
            case "account": try setOnce(&account, value.readString())
            case "side":
                guard let parsed = Side(rawValue: try value.readString()) else { throw JSONRefusal() }
                try setOnce(&side, parsed)
            case "amount": try setOnce(&amount, CurrencyAmount.read(from: &value))
            default: throw JSONRefusal()
            }
        }
        guard let account, let side, let amount else { throw JSONRefusal() }
        return LedgerEntry(account: account, side: side, amount: amount)
    }
}
