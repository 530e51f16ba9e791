import Foundation
import IntentEvents
import Testing

/// ``EventAuthenticator/verify(_:received:signature:producedBy:)``: a MAC over the
/// record's own bytes is accepted first, the canonical form second, and everything the
/// canonical check refused is still refused, for the same reason.
@Suite("Signatures over the received bytes")
struct ReceivedBytesSignatureTests {
    let source = "/workers/confirm"
    let keys = EventAuthenticator(keys: [
        SigningKey(source: "/workers/confirm", id: "k1", bytes: Array(repeating: 7, count: 32))
    ])
    let event = EventEnvelope(
        id: "e-1", source: "/workers/confirm", type: "intent.confirmed.v1",
        time: Date(timeIntervalSince1970: 1_790_000_000.123), userID: "alice", conversationID: "c-1",
        intentID: "i-1", data: .object(["note": .string("dinner ☕️"), "amount": .integer(12)]))

    /// The refusal `body` throws, if any.
    func refusal(_ body: () throws -> Void) -> EventDecodingError? {
        do {
            try body()
            return nil
        } catch let error as EventDecodingError {
            return error
        } catch {
            Issue.record("not a decoding error: \(error)")
            return nil
        }
    }

    @Test("the canonical bytes a pipeline producer publishes verify, decoded from themselves")
    func canonical() throws {
        let bytes = event.encoded()
        let signature = try #require(keys.signature(forCanonical: bytes, source: source))
        let decoded = try EventEnvelope.decode(bytes)
        try keys.verify(decoded, received: bytes, signature: signature, producedBy: .only(source))
        #expect(refusal { try keys.verify(decoded, signature: signature, producedBy: .only(source)) } == nil)
    }

    @Test("other bytes than the canonical ones that were signed still verify (the canonical fallback)")
    func nonCanonicalSignedCanonically() throws {
        let canonical = event.encoded()
        let signature = try #require(keys.signature(forCanonical: canonical, source: source))
        let received = Array("\n  ".utf8) + canonical + Array(" \n".utf8)
        let decoded = try EventEnvelope.decode(received)
        #expect(decoded.encoded() == canonical)
        #expect(received != canonical)
        try keys.verify(decoded, received: received, signature: signature, producedBy: .only(source))
    }

    @Test("a signature over exactly the received (non-canonical) bytes verifies: the key holder wrote them")
    func nonCanonicalSignedAsSent() throws {
        let received = Array(" ".utf8) + event.encoded()
        let signature = try #require(keys.signature(forCanonical: received, source: source))
        let decoded = try EventEnvelope.decode(received)
        try keys.verify(decoded, received: received, signature: signature, producedBy: .only(source))
        // Only the received-bytes check accepts it: the canonical form is not what was signed.
        #expect(
            refusal { try keys.verify(decoded, signature: signature, producedBy: .only(source)) }?.reason
                == .unauthenticated)
    }

    @Test("a modified record, a wrong key, a signature of other bytes: refused as before, for the same reason")
    func refusedAsBefore() throws {
        let bytes = event.encoded()
        let signature = try #require(keys.signature(forCanonical: bytes, source: source))
        let otherKey = EventAuthenticator(keys: [
            SigningKey(source: source, id: "k1", bytes: Array(repeating: 8, count: 32))
        ])
        var other = event
        other.id = "e-2"
        let otherSignature = try #require(keys.signature(forCanonical: other.encoded(), source: source))
        let modified = Array(
            String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "dinner", with: "dinnet").utf8)
        let cases: [(String, EventAuthenticator, [UInt8], EventSignature?, Producers)] = [
            ("modified record", keys, modified, signature, .only(source)),
            ("wrong key", otherKey, bytes, signature, .only(source)),
            ("signature of other bytes", keys, bytes, otherSignature, .only(source)),
            ("unsigned", keys, bytes, nil, .only(source)),
            ("unknown key id", keys, bytes, EventSignature(keyID: "k9", hex: signature.hex), .only(source)),
            ("wrong producer", keys, bytes, signature, .only("/workers/resolve")),
            ("no key for the source", EventAuthenticator(keys: []), bytes, signature, .any),
            (
                "signature without key id, wrong bytes", keys, modified, EventSignature(keyID: nil, hex: signature.hex),
                .any
            ),
        ]
        for (name, authenticator, received, signature, producers) in cases {
            let decoded = try EventEnvelope.decode(received)
            let before = refusal { try authenticator.verify(decoded, signature: signature, producedBy: producers) }
            let now = refusal {
                try authenticator.verify(decoded, received: received, signature: signature, producedBy: producers)
            }
            #expect(before != nil, "\(name)")
            #expect(now == before, "\(name)")
        }
    }
}
