public import IntentEvents
import Intents

/// Ledger events are published once per payment step and re-encoded by no one:
/// writing them directly saves the generic encoder's frames and key sorting
/// on the payments worker's hot path. The keys below are in the order
/// canonical JSON sorts them; `LedgerEventCanonicalTests` checks the bytes
/// against the `Encodable` form for every kind and awkward strings.
extension LedgerEvent: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        if let accountVersion { object.integer("accountVersion", accountVersion, into: &output) }
        if let amount {
            object.key("amount", into: &output)
            amount.writeCanonicalJSON(into: &output)
        }
        object.string("counterpartyAccount", counterpartyAccount, into: &output)
        object.string("counterpartyContactID", counterpartyContactID, into: &output)
        object.string("counterpartyUserID", counterpartyUserID, into: &output)
        object.time("decidedAt", decidedAt, into: &output)
        object.string("decidedBy", decidedBy, into: &output)
        object.array("entries", entries, into: &output) { entry, output in
            var item = CanonicalObjectWriter(into: &output)
            item.string("account", entry.account, into: &output)
            item.key("amount", into: &output)
            entry.amount.writeCanonicalJSON(into: &output)
            item.string("side", entry.side.rawValue, into: &output)
            item.close(into: &output)
        }
        object.time("expiresAt", expiresAt, into: &output)
        object.strings("handles", handles, into: &output)
        object.string("id", id, into: &output)
        object.string("intentID", intentID, into: &output)
        object.string("kind", kind.rawValue, into: &output)
        object.string("note", note, into: &output)
        object.string("owner", owner, into: &output)
        object.string("reason", reason, into: &output)
        object.string("requestID", requestID, into: &output)
        object.string("requestSource", requestSource, into: &output)
        object.string("transferID", transferID, into: &output)
        object.string("userID", userID, into: &output)
        object.bool("verified", verified, into: &output)
        object.close(into: &output)
    }
}
