public import ContactResolution
public import Foundation
public import IntentEvents

/// A record of the compacted contacts topic. The key names the user and the
/// contact (so compaction keeps the latest version of each contact); the
/// value is a `contact.upserted.v1` event, or empty (a tombstone) when the
/// contact was deleted.
public enum ContactRecord: Sendable, Hashable {
    case upsert(userID: String, contact: Contact)
    case delete(userID: String, contactID: String)

    public static let upsertedType = "contact.upserted.v1"
    public static let upsertedDataSchema = "urn:intent-pipeline:schema:contact.upserted:v1"

    /// The record key: the JSON array `["userID","contactID"]`, unambiguous
    /// whatever characters the ids hold.
    public static func key(userID: String, contactID: String) -> [UInt8] {
        CanonicalJSON.encode([userID, contactID])
    }

    /// Reads a record, strictly; a bad record is an ``EventDecodingError`` for the dead-letter topic.
    public static func decode(key: [UInt8]?, value: [UInt8]?) throws(EventDecodingError) -> ContactRecord {
        guard let key, let ids = try? JSONDecoder().decode([String].self, from: Data(key)), ids.count == 2,
            !ids[0].isEmpty, !ids[1].isEmpty
        else {
            throw EventDecodingError(.schemaInvalid, field: "key", "expected the key [\"userID\",\"contactID\"]")
        }
        guard let value, !value.isEmpty else { return .delete(userID: ids[0], contactID: ids[1]) }
        let envelope = try EventEnvelope.decode(value)
        guard envelope.type == upsertedType else {
            throw EventDecodingError(
                .unknownType, field: "$.type", "expected \(upsertedType) on the contacts topic, got \(envelope.type)")
        }
        let contact = try envelope.decodeData(as: Contact.self)
        guard envelope.userID == ids[0], contact.id == ids[1] else {
            throw EventDecodingError(
                .schemaInvalid, field: "key",
                "key \(ids) does not match userid \(envelope.userID) and contact id \(contact.id)")
        }
        return .upsert(userID: ids[0], contact: contact)
    }

    /// What a tombstone's signature covers: the deletion of this contact of this user.
    /// (A tombstone has no value to sign; its source travels in ``sourceHeader``.)
    public static func deletionMessage(userID: String, contactID: String) -> [UInt8] {
        CanonicalJSON.encode(["intent-pipeline/contact-deleted/v1", userID, contactID])
    }

    /// The header naming a tombstone's source (an upsert's is in its envelope).
    public static let sourceHeader = "intent-source"

    /// Reads a record and checks that a contacts service (``PipelineSource/contacts``)
    /// signed it: a forged contact could give a payee someone else's account.
    /// `tombstoneSource` is the ``sourceHeader`` of the record, if any.
    public static func decode(
        key: [UInt8]?, value: [UInt8]?, signature: EventSignature?, tombstoneSource: String?,
        authenticator: EventAuthenticator
    ) throws(EventDecodingError) -> ContactRecord {
        let record = try decode(key: key, value: value)
        switch record {
        case .upsert:
            try authenticator.verify(
                try EventEnvelope.decode(value ?? []), received: value, signature: signature,
                producedBy: PipelineSource.contacts)
        case .delete(let userID, let contactID):
            try authenticator.verify(
                canonical: deletionMessage(userID: userID, contactID: contactID), source: tombstoneSource ?? "",
                what: "a contact deletion", signature: signature, producedBy: PipelineSource.contacts)
        }
        return record
    }

    /// The event for an upsert, as a producer (tests, `intentctl contacts publish`) writes it.
    public static func upsertEvent(userID: String, contact: Contact, source: String, time: Date = Date())
        -> EventEnvelope
    {
        EventEnvelope(
            id: EventID.derived(
                "contact", userID, contact.id, String(decoding: CanonicalJSON.encode(contact), as: UTF8.self)),
            source: source, type: upsertedType, time: time, subject: contact.id, dataSchema: upsertedDataSchema,
            userID: userID, conversationID: "contacts", payload: contact)
    }
}
