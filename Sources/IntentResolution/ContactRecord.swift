public import ContactResolution
public import Foundation
public import IntentEvents

/// A record of the compacted contacts topic. The key names the user and the
/// contact (so compaction keeps the latest version of each contact); the
/// value is a `contact.upserted.v1` event, or empty (a tombstone) when the
/// contact was deleted. Both carry a signed version that only grows per contact
/// (``RecordVersion``): readers ignore an older or equal one, so a re-appended old
/// record (or tombstone) changes nothing.
public enum ContactRecord: Sendable, Hashable {
    case upsert(userID: String, contact: Contact, version: Int64 = RecordVersion.unversioned)
    case delete(userID: String, contactID: String, version: Int64 = RecordVersion.unversioned)

    public static let upsertedType = "contact.upserted.v1"
    public static let upsertedDataSchema = "urn:intent-pipeline:schema:contact.upserted:v1"

    /// The record key: the JSON array `["userID","contactID"]`, unambiguous
    /// whatever characters the ids hold.
    public static func key(userID: String, contactID: String) -> [UInt8] {
        CanonicalJSON.encode([userID, contactID])
    }

    /// The record key's user and contact ids, nil when it is not the key ``key(userID:contactID:)`` makes.
    static func ids(inKey key: [UInt8]?) -> [String]? {
        guard let key, let ids = try? JSONDecoder().decode([String].self, from: Data(key)), ids.count == 2,
            !ids[0].isEmpty, !ids[1].isEmpty
        else { return nil }
        return ids
    }

    /// The user a record key names, as UTF-8: what its producers place the record by (the
    /// user's partition, so every contact of a user is on one partition).
    public static func placementKey(_ key: [UInt8]?) -> [UInt8]? {
        ids(inKey: key).map { Array($0[0].utf8) }
    }

    /// The user and contact the record is about.
    public var userID: String {
        switch self {
        case .upsert(let userID, _, _), .delete(let userID, _, _): userID
        }
    }

    public var contactID: String {
        switch self {
        case .upsert(_, let contact, _): contact.id
        case .delete(_, let contactID, _): contactID
        }
    }

    public var version: Int64 {
        switch self {
        case .upsert(_, _, let version), .delete(_, _, let version): version
        }
    }

    /// Reads a record, strictly; a bad record is an ``EventDecodingError`` for the dead-letter topic.
    /// `tombstoneVersion` is a tombstone's ``RecordVersion/header``, if any.
    public static func decode(key: [UInt8]?, value: [UInt8]?, tombstoneVersion: String? = nil)
        throws(EventDecodingError) -> ContactRecord
    {
        guard let ids = ids(inKey: key) else {
            throw EventDecodingError(.schemaInvalid, field: "key", "expected the key [\"userID\",\"contactID\"]")
        }
        try checkKeyLimits(ids)
        guard let value, !value.isEmpty else {
            return .delete(
                userID: ids[0], contactID: ids[1], version: try RecordVersion.parseHeader(tombstoneVersion))
        }
        let envelope = try EventEnvelope.decode(value)
        guard envelope.type == upsertedType else {
            throw EventDecodingError(
                .unknownType, field: "$.type", "expected \(upsertedType) on the contacts topic, got \(envelope.type)")
        }
        let data = try envelope.decodeData(as: Versioned<Contact>.self)
        let contact = data.payload
        try checkLimits(contact)
        guard envelope.userID == ids[0], contact.id == ids[1] else {
            throw EventDecodingError(
                .schemaInvalid, field: "key",
                "key \(ids) does not match userid \(envelope.userID) and contact id \(contact.id)")
        }
        return .upsert(userID: ids[0], contact: contact, version: try RecordVersion.check(data.version))
    }

    /// What a tombstone's signature covers: the deletion of this contact of this user, at
    /// this version. (A tombstone has no value to sign; its source travels in
    /// ``sourceHeader``, its version in ``RecordVersion/header``.) An unversioned
    /// deletion (an older writer's) signs the message without the version.
    public static func deletionMessage(
        userID: String, contactID: String, version: Int64 = RecordVersion.unversioned
    ) -> [UInt8] {
        guard version != RecordVersion.unversioned else {
            return CanonicalJSON.encode(["intent-pipeline/contact-deleted/v1", userID, contactID])
        }
        return CanonicalJSON.encode(["intent-pipeline/contact-deleted/v2", userID, contactID, String(version)])
    }

    /// The header naming a tombstone's source (an upsert's is in its envelope).
    public static let sourceHeader = "intent-source"

    /// Reads a record and checks that a contacts service (``PipelineSource/contacts``)
    /// signed it: a forged contact could give a payee someone else's account.
    /// `tombstoneSource` and `tombstoneVersion` are the ``sourceHeader`` and
    /// ``RecordVersion/header`` of the record, if any.
    public static func decode(
        key: [UInt8]?, value: [UInt8]?, signature: EventSignature?, tombstoneSource: String?,
        tombstoneVersion: String? = nil, authenticator: EventAuthenticator
    ) throws(EventDecodingError) -> ContactRecord {
        let record = try decode(key: key, value: value, tombstoneVersion: tombstoneVersion)
        switch record {
        case .upsert:
            try authenticator.verify(
                try EventEnvelope.decode(value ?? []), received: value, signature: signature,
                producedBy: PipelineSource.contacts)
        case .delete(let userID, let contactID, let version):
            try authenticator.verify(
                canonical: deletionMessage(userID: userID, contactID: contactID, version: version),
                source: tombstoneSource ?? "",
                what: "a contact deletion", signature: signature, producedBy: PipelineSource.contacts)
        }
        return record
    }

    /// The event for an upsert, as a producer (tests, `intentctl contacts publish`) writes it;
    /// `version` nil writes an unversioned record (as older writers did).
    public static func upsertEvent(
        userID: String, contact: Contact, version: Int64?, source: String, time: Date = Date()
    ) -> EventEnvelope {
        let data = Versioned(contact, version: version)
        return EventEnvelope(
            id: EventID.derived(
                "contact", userID, contact.id, String(decoding: CanonicalJSON.encode(data), as: UTF8.self)),
            source: source, type: upsertedType, time: time, subject: contact.id, dataSchema: upsertedDataSchema,
            userID: userID, conversationID: "contacts", payload: data)
    }
}
