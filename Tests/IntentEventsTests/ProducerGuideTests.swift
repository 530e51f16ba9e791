import Foundation
import IntentEvents
import Testing

/// docs/producers.md's worked example, as the guide states it (its numbers
/// were computed with Python's json and hmac, not with this code): the
/// pipeline must agree, or the guide misleads every producer.
@Suite("The producer guide's worked example")
struct ProducerGuideTests {
    static let input = #"""
        {"type":"intent.requested.v1","specversion":"1.0","id":"req-1","source":"/voice/eu-1",
         "time":"2026-11-23T17:00:00.5Z","userid":"alice","conversationid":"conv-1","intentid":"intent-1",
         "dataschema":"urn:intent-pipeline:schema:intent.requested:v1",
         "data":{"turn":1,"intent":{"kind":"sendMessage","recipients":[{"spoken":"小明"}],"content":"see you at 7"}}}
        """#
    static let canonical = #"""
        {"conversationid":"conv-1","data":{"intent":{"content":"see you at 7","kind":"sendMessage","recipients":[{"spoken":"小明"}]},"turn":1},"datacontenttype":"application/json","dataschema":"urn:intent-pipeline:schema:intent.requested:v1","id":"req-1","intentid":"intent-1","source":"/voice/eu-1","specversion":"1.0","time":"2026-11-23T17:00:00.500Z","type":"intent.requested.v1","userid":"alice"}
        """#

    @Test("canonical bytes, key id and signature are the guide's")
    func workedExample() throws {
        let event = try EventEnvelope.decode(Array(Self.input.utf8))
        #expect(String(decoding: event.encoded(), as: UTF8.self) == Self.canonical)
        let keys = try EventAuthenticator.parseKeys(
            "/voice/eu-1 \(String(repeating: "ab", count: 32))", origin: "guide")
        let signature = try #require(EventAuthenticator(keys: keys).signature(for: event))
        #expect(signature.keyID == "9a2db2e23f1504cd")
        #expect(signature.hex == "ed9c632124b726cbffdb294bd440c080ecb4770a438afbb350b39beaea86a522")
        // The guide itself still says so.
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/producers.md"), encoding: .utf8)
        #expect(guide.contains(Self.canonical))
        #expect(guide.contains(signature.hex))
    }
}
