public import IntentEvents

/// A record of the accounts topic as every reader of it takes it (the workers'
/// directory, the app state, `intentctl`, replays): a ledger record
/// (``LedgerRecord``: signed by the ledger operator, keyed by its user) that is an
/// account opening or closing, the only kinds that belong there. What it then
/// changes is the directory's rules' to say (``AccountDirectory``).
public enum AccountRecord {
    public static func decode(
        key: String?, value: [UInt8]?, signature: EventSignature?, keys: EventAuthenticator
    ) throws(EventDecodingError) -> LedgerEvent {
        let event = try LedgerRecord.decode(key: key, value: value, signature: signature, keys: keys)
        guard event.kind == .accountOpened || event.kind == .accountClosed else {
            throw EventDecodingError(
                .schemaInvalid, field: "$.data.kind",
                "the accounts topic holds account openings and closings, not a \(event.kind.rawValue)")
        }
        return event
    }
}
