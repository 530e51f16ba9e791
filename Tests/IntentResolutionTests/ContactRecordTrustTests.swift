import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Testing

/// Contacts decide whose account a payment credits, so the resolve worker
/// takes them only signed by a contacts service.
@Suite("Contact records are taken only from a contacts service")
struct ContactRecordTrustTests {
    let keys = EventAuthenticator(
        keys: [
            "/contacts/sync": Array(repeating: 0x21, count: 32), "/voice/test": Array(repeating: 0x22, count: 32),
        ])
    let sunbo = Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"])

    func decode(_ key: [UInt8], _ value: [UInt8]?, _ signature: EventSignature?, source: String? = nil) throws
        -> ContactRecord
    {
        try ContactRecord.decode(
            key: key, value: value, signature: signature, tombstoneSource: source, authenticator: keys)
    }

    @Test("a signed upsert is taken; unsigned, forged or a voice service's is refused with the reason")
    func upserts() throws {
        let key = ContactRecord.key(userID: "alice", contactID: "sunbo")
        let event = ContactRecord.upsertEvent(
            userID: "alice", contact: sunbo, version: nil, source: "/contacts/sync", time: fixedNow)
        #expect(
            try decode(key, event.encoded(), keys.signature(for: event)) == .upsert(userID: "alice", contact: sunbo))

        var swapped = sunbo
        swapped.handles = ["mallory@evil.example"]
        let forged = ContactRecord.upsertEvent(
            userID: "alice", contact: swapped, version: nil, source: "/contacts/sync", time: fixedNow)
        let byVoice = ContactRecord.upsertEvent(
            userID: "alice", contact: swapped, version: nil, source: "/voice/test", time: fixedNow)
        for (value, signature, reason) in [
            (forged.encoded(), nil, EventDecodingError.Reason.unauthenticated),
            (forged.encoded(), keys.signature(for: event), .unauthenticated),
            (byVoice.encoded(), keys.signature(for: byVoice), .wrongProducer),
        ] as [([UInt8], EventSignature?, EventDecodingError.Reason)] {
            let error = #expect(throws: EventDecodingError.self) { try decode(key, value, signature) }
            #expect(error?.reason == reason)
        }
    }

    @Test("a tombstone counts only with a signature over that very deletion")
    func tombstones() throws {
        let key = ContactRecord.key(userID: "alice", contactID: "sunbo")
        let signature = keys.signature(
            forCanonical: ContactRecord.deletionMessage(userID: "alice", contactID: "sunbo"), source: "/contacts/sync")
        #expect(
            try decode(key, nil, signature, source: "/contacts/sync") == .delete(userID: "alice", contactID: "sunbo"))
        // Unsigned, without a source, or a signature replayed onto another contact's key.
        let other = ContactRecord.key(userID: "alice", contactID: "xiaoming")
        for (key, signature, source) in [
            (key, nil, "/contacts/sync"), (key, signature, nil), (other, signature, "/contacts/sync"),
        ] as [([UInt8], EventSignature?, String?)] {
            #expect(throws: EventDecodingError.self) { try decode(key, nil, signature, source: source) }
        }
    }
}
