import Foundation
import Testing

@testable import IntentEvents

/// ``EventEnvelope/encoded()`` interleaves the extension attributes with the envelope's
/// own in name order, straight from the members (no sorted copy), and writes the time
/// in place: the bytes must stay those of the envelope as one canonical JSON object.
@Suite("Envelopes with extension attributes encode as one canonical JSON object")
struct EnvelopeExtensionEncodingTests {
    @Test("extensions before, between and after every attribute, and times across the years")
    func sameBytesAsFoundation() throws {
        let names = ["a", "causationid0", "dataschemb", "locale", "partitionkey", "traceparent", "zz", "idx", "b1"]
        let values: [JSONValue] = [.string("x/ü\"\n"), .integer(-7), .bool(true), .string("")]
        for index in 0..<200 {
            var envelope = EventEnvelope(
                id: "id-\(index)", source: "/workers/resolve", type: "intent.resolved.v1",
                time: Date(timeIntervalSince1970: Double(index) * 1_000_003.25 - 50_000),
                subject: index % 2 == 0 ? "s" : nil, dataSchema: index % 3 == 0 ? nil : "urn:x",
                userID: "user-\(index)", conversationID: "c", intentID: index % 4 == 0 ? nil : "i",
                causationID: index % 5 == 0 ? nil : "cause", data: .object(["k": .integer(Int64(index))]))
            for (offset, name) in names.enumerated() where (index >> (offset % 8)) & 1 == 1 {
                try envelope.extensions.set(name, values[(index + offset) % values.count])
            }
            #expect(envelope.encoded() == envelope.foundationEncoded(), "\(index)")
        }
    }
}
