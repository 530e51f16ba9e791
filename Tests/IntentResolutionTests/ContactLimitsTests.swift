import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Testing

/// A contacts service's record is held to the sizes its schema states: a contact id past the
/// 256 characters a voice service's turn may name was offered as a candidate, and the turn
/// naming it was then refused, an intent never answered (SECURITY.md, attack 50).
@Suite("Contacts within the schema's sizes")
struct ContactLimitsTests {
    /// One bounded field: a contact with it at `limit` and one past it (characters or items).
    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        /// Where the schema states the bound, under `properties` of schemas/contact/upserted.v1.json.
        var schemaPath: [String]
        var bound: String
        var contact: @Sendable (Int) -> Contact
        var testDescription: String { field }
    }

    static func text(_ count: Int) -> String { String(repeating: "孙", count: count) }

    static let cases: [Case] = [
        // The record's key names the contact too, and is read first.
        Case(field: "key[1]", schemaPath: ["id"], bound: "maxLength") {
            Contact(id: text($0), displayName: "孙波")
        },
        Case(field: "$.data.displayName", schemaPath: ["displayName"], bound: "maxLength") {
            Contact(id: "c1", displayName: text($0))
        },
        Case(field: "$.data.givenName", schemaPath: ["givenName"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", givenName: text($0))
        },
        Case(field: "$.data.familyName", schemaPath: ["familyName"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", familyName: text($0))
        },
        Case(field: "$.data.nickname", schemaPath: ["nickname"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", nickname: text($0))
        },
        Case(field: "$.data.aliases", schemaPath: ["aliases"], bound: "maxItems") {
            Contact(id: "c1", displayName: "孙波", aliases: Array(repeating: "波波", count: $0))
        },
        Case(field: "$.data.aliases[0]", schemaPath: ["aliases", "items"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", aliases: [text($0)])
        },
        Case(field: "$.data.relation", schemaPath: ["relation"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", relation: text($0))
        },
        Case(field: "$.data.handles", schemaPath: ["handles"], bound: "maxItems") {
            Contact(id: "c1", displayName: "孙波", handles: (0..<$0).map { "+86 138 0000 \($0)" })
        },
        Case(field: "$.data.handles[0]", schemaPath: ["handles", "items"], bound: "maxLength") {
            Contact(id: "c1", displayName: "孙波", handles: [String(repeating: "9", count: $0)])
        },
    ]

    let keys = EventAuthenticator(keys: ["/contacts/sync": Array(repeating: 0x21, count: 32)])

    func decode(_ contact: Contact) throws(EventDecodingError) -> ContactRecord {
        let event = ContactRecord.upsertEvent(
            userID: "alice", contact: contact, version: 1, source: "/contacts/sync", time: fixedNow)
        return try ContactRecord.decode(
            key: ContactRecord.key(userID: "alice", contactID: contact.id), value: event.encoded(),
            signature: keys.signature(for: event), tombstoneSource: nil, authenticator: keys)
    }

    @Test("one past the schema's bound is refused, naming the field; at the bound it is taken", arguments: cases)
    func bound(_ bounded: Case) throws {
        let limit = try Self.schemaBound(bounded.schemaPath, bounded.bound)
        let error = #expect(throws: EventDecodingError.self) { try decode(bounded.contact(limit + 1)) }
        #expect(error?.reason == .schemaInvalid)
        #expect(error?.field == bounded.field)
        let taken = try decode(bounded.contact(limit))
        #expect(taken == .upsert(userID: "alice", contact: bounded.contact(limit), version: 1))
    }

    @Test("a tombstone's key is held to an id's length")
    func tombstoneKey() throws {
        let limit = try Self.schemaBound(["id"], "maxLength")
        func delete(_ contactID: String) throws(EventDecodingError) -> ContactRecord {
            let signature = keys.signature(
                forCanonical: ContactRecord.deletionMessage(userID: "alice", contactID: contactID, version: 2),
                source: "/contacts/sync")
            return try ContactRecord.decode(
                key: ContactRecord.key(userID: "alice", contactID: contactID), value: nil, signature: signature,
                tombstoneSource: "/contacts/sync", tombstoneVersion: "2", authenticator: keys)
        }
        let error = #expect(throws: EventDecodingError.self) { try delete(Self.text(limit + 1)) }
        #expect(error?.reason == .schemaInvalid)
        #expect(error?.field == "key[1]")
        #expect(try delete(Self.text(limit)) == .delete(userID: "alice", contactID: Self.text(limit), version: 2))
    }

    /// The bound as the schema file states it, so the Swift limits cannot drift from it.
    static func schemaBound(_ path: [String], _ bound: String) throws -> Int {
        try schemaFileBound("contact/upserted.v1.json", under: "properties", path, bound)
    }
}
