import IntentCrypto
import Testing

@testable import IntentEvents

/// A stage stamps every record it writes to a chained topic with
/// ``RecordChain/stamp(topic:partition:source:previous:supersedes:value:keys:)``, which
/// writes the header values straight to bytes. The chain's format must not change: the
/// audit, and every record already written, read them through ``RecordChain/Link`` and
/// ``RecordChain/signature(topic:partition:link:value:keys:)``. So the stamp is compared
/// with what that path writes for the same nonce, byte for byte.
@Suite("Record chain stamps")
struct RecordChainStampTests {
    static let keys = EventAuthenticator(
        keys: [
            SigningKey(source: "/workers/payments", id: "old", bytes: [UInt8](repeating: 1, count: 32)),
            SigningKey(source: "/workers/payments", id: "k-2", bytes: [UInt8](repeating: 2, count: 32)),
        ])

    @Test("the stamp's headers and hash are the link path's, and verify as a link")
    func sameBytesAsTheLinkPath() throws {
        let values: [[UInt8]] = [[], Array(#"{"a":1}"#.utf8), [UInt8](repeating: 0xFF, count: 300)]
        for (index, value) in values.enumerated() {
            for supersedes in [nil, "ab" + String(index)] {
                let nonce = "0123456789abcde\(index)"
                let previous = index == 0 ? RecordChain.genesis : "prev-\(index) é"
                let stamp = try #require(
                    Array(nonce.utf8).withUnsafeBufferPointer {
                        RecordChain.stamp(
                            topic: "ledger", partition: Int32(index), source: "/workers/payments", previous: previous,
                            nonce: $0, supersedes: supersedes, value: value, keys: Self.keys)
                    })
                let link = RecordChain.Link(
                    source: "/workers/payments", previous: previous, nonce: nonce, supersedes: supersedes)
                let signature = try #require(
                    RecordChain.signature(
                        topic: "ledger", partition: Int32(index), link: link, value: value, keys: Self.keys))
                #expect(stamp.link == Array(link.headerValue.utf8))
                #expect(stamp.signature == Array(RecordChain.headerValue(of: signature).utf8))
                #expect(stamp.hash == signature.hex)
                #expect(signature.keyID == "k-2")
                try RecordChain.verify(
                    signature, topic: "ledger", partition: Int32(index), link: link, value: value, keys: Self.keys)
            }
        }
    }

    @Test("a fresh stamp carries a new random nonce each time and parses back as a link")
    func freshNonces() throws {
        let value = Array("v".utf8)
        let first = try #require(
            RecordChain.stamp(
                topic: "ledger", partition: 0, source: "/workers/payments", previous: RecordChain.genesis,
                supersedes: nil, value: value, keys: Self.keys))
        let second = try #require(
            RecordChain.stamp(
                topic: "ledger", partition: 0, source: "/workers/payments", previous: RecordChain.genesis,
                supersedes: nil, value: value, keys: Self.keys))
        let link = try #require(RecordChain.Link(headerValue: String(decoding: first.link, as: UTF8.self)))
        let other = try #require(RecordChain.Link(headerValue: String(decoding: second.link, as: UTF8.self)))
        #expect(link.nonce.utf8.count == 16 && Digest.bytes(hex: link.nonce)?.count == 8)
        #expect(link.nonce != other.nonce)
        #expect(first.hash != second.hash)
        let signature = try #require(
            RecordChain.signature(headerValue: String(decoding: first.signature, as: UTF8.self)))
        try RecordChain.verify(signature, topic: "ledger", partition: 0, link: link, value: value, keys: Self.keys)
        #expect(
            RecordChain.stamp(
                topic: "ledger", partition: 0, source: "/workers/other", previous: RecordChain.genesis,
                supersedes: nil, value: value, keys: Self.keys) == nil)
    }
}
