import Testing

@testable import IntentEvents

/// The chain headers are parsed by byte: every space separates, empty fields are kept
/// (so a doubled space is refused, not read as one), and other bytes are left alone.
@Suite("Record chain headers")
struct RecordChainHeaderTests {
    @Test("fields split at every space, keeping empty ones, as the standard library's split does")
    func fields() {
        for text in ["a b c", "a  b", " a", "a ", "", " ", "é 张 x", "one", "a\tb c"] {
            let expected = text.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
                .map { String(decoding: Array($0), as: UTF8.self) }
            #expect(RecordChain.fields(of: text) == expected, "\(text)")
        }
        #expect(RecordChain.fields(of: "a  b") == ["a", "", "b"])
    }

    @Test("a link and a signature read back from their header values; malformed ones do not")
    func headers() {
        let link = RecordChain.Link(source: "/workers/payments", previous: "p1", nonce: "n1", supersedes: "s1")
        #expect(RecordChain.Link(headerValue: link.headerValue) == link)
        let plain = RecordChain.Link(source: "/workers/payments", previous: "p1", nonce: "n1")
        #expect(RecordChain.Link(headerValue: plain.headerValue) == plain)
        for malformed in ["/workers/payments p1", "/workers/payments  p1 n1", "a b c d e", ""] {
            #expect(RecordChain.Link(headerValue: malformed) == nil, "\(malformed)")
        }
        let signature = EventSignature(keyID: "k1", hex: "ab")
        #expect(RecordChain.signature(headerValue: RecordChain.headerValue(of: signature)) == signature)
        #expect(RecordChain.signature(headerValue: "- ab") == EventSignature(keyID: nil, hex: "ab"))
        #expect(RecordChain.signature(headerValue: "k1  ab") == nil)
    }
}
