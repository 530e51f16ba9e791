import Foundation
import Testing

@testable import IntentEvents

/// Envelope decoding reads the top-level object straight from the bytes, picking attributes
/// by name and keeping `data` as bytes (``JSONParser/readEnvelope(_:deferringData:)``),
/// instead of parsing it into a dictionary and looking each up: the same documents read or
/// refused (same failures), the same attribute values (a repeated name keeping its first),
/// the same other members, and deferred `data` bytes that parse to the dictionary's `data`.
@Suite("Envelope decoding equivalence")
struct EnvelopeDecodingEquivalenceTests {
    /// The members as the parser's dictionary holds them: the first value of each key.
    func dictionary(_ members: [(key: String, value: JSONValue)]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in members where object[key] == nil { object[key] = value }
        return object
    }

    /// An attribute's value as read, `time` as its text when it was read from the bytes.
    func value(of attribute: EventEnvelope.Attribute, in members: EnvelopeMembers, _ bytes: [UInt8]) -> JSONValue? {
        guard attribute == .time, let parsed = members.parsedTime else { return members[attribute] }
        #expect(members[.time] == nil)
        return .string(String(decoding: bytes[parsed.text], as: UTF8.self))
    }

    func readEnvelope(_ bytes: [UInt8], deferringData: Bool) -> Result<JSONParser.Envelope, JSONParser.Failure> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParser.Failure) in try JSONParser.readEnvelope(buffer, deferringData: deferringData)
            }
        }
    }

    func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }
        let known = Set(EventEnvelope.Attribute.allCases.map(\.rawValue))
        for deferringData in [false, true] {
            let read = readEnvelope(bytes, deferringData: deferringData)
            switch (parsed, read) {
            case (.failure(let expected), .failure(let failure)):
                #expect(failure.description == expected.description, sourceLocation: sourceLocation)
            case (.success(.object(let object)), .success(.members(let members))):
                for attribute in EventEnvelope.Attribute.allCases where !(deferringData && attribute == .data) {
                    #expect(
                        value(of: attribute, in: members, bytes) == object[attribute.rawValue],
                        sourceLocation: sourceLocation)
                }
                // A time read from its bytes is the instant its text says.
                if let parsed = members.parsedTime {
                    #expect(
                        EventTime.parse(String(decoding: bytes[parsed.text], as: UTF8.self))
                            == EventTime.date(milliseconds: parsed.milliseconds), sourceLocation: sourceLocation)
                }
                if deferringData {
                    #expect(members[.data] == nil, sourceLocation: sourceLocation)
                    let kept = members.deferredData.flatMap { try? JSONParser.parse(bytes[$0]) }
                    #expect(kept == object["data"], sourceLocation: sourceLocation)
                } else {
                    #expect(members.deferredData == nil, sourceLocation: sourceLocation)
                }
                // The other members (extension attributes), a repeated name keeping its first value.
                #expect(
                    dictionary(members.others) == object.filter { !known.contains($0.key) },
                    sourceLocation: sourceLocation)
            case (.success(let value), .success(.value(let read))):
                #expect(read == value, sourceLocation: sourceLocation)
                if case .object = value { Issue.record("an object read as a value", sourceLocation: sourceLocation) }
            default:
                Issue.record("\(parsed) read as \(read)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("the top-level reader reads and refuses what the parser does")
    func topLevelMatchesParser() {
        let inputs = [
            #"{"a":1,"a":2}"#, #"{"a":1,}"#, "\u{FEFF}{}", "{}", " { } ", #"{"a":{"b":{"c":[1,{"d":2}]}},"e":3}"#,
            #"{"a":1} x"#, #"{"a"}"#, #"{"a":}"#, "{1:2}", #"{"a":1 "b":2}"#, "{,}", "{", "[1]", "\"x\"", "null", "",
            #"{"é":1,"e\u0301":2}"#, #"{"x":"\ud800"}"#,
            // A deferred member's value is checked as it would be read: refusals, escapes, nesting.
            #"{"a":{"b":[1,2,{"c":"d\n"}],},"k":"\u00e9\ud83d\ude00","x":[true,false,null,-1.5e3]}"#,
            #"{"a":[1,],"a":2}"#, #"{"a":"x\q"}"#, #"{"a":"\ud800"}"#, #"{"a":01}"#, #"{"a":{"b" 1}}"#,
            #"{"a":{1:2}}"#, #"{"a":[1 2]}"#, #"{"a":tru}"#, #"{"a":"é","k":"\u0065\u0301"}"#,
            "{\"a\":\"\u{1}\"}", "{\"a\":\"unterminated", "{\"a\":{\"b\":\"unterminated\"",
            "{\"a\":\"" + String(repeating: "é", count: 20) + "\"}",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            "{\"a\":" + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}",
            "{\"a\":" + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}",
        ]
        for input in inputs {
            expectSameReading(Array(input.utf8))
            // The same documents with attributes for names: `data` deferred, `id` and `source` read.
            let named = input.replacingOccurrences(of: #""a""#, with: #""data""#)
                .replacingOccurrences(of: #""k""#, with: #""id""#).replacingOccurrences(of: #""x""#, with: #""source""#)
            expectSameReading(Array(named.utf8))
        }
        // Invalid UTF-8 in a string without escapes, where a deferred value is only checked.
        expectSameReading(Array(#"{"a":"x"#.utf8) + [0xFF] + Array(#"","k":1}"#.utf8))
        expectSameReading(Array(#"{"k":["#.utf8) + [0x22, 0xC3, 0x22] + Array("]}".utf8))
        expectSameReading(Array(#"{"data":"x"#.utf8) + [0xFF] + Array(#"","id":1}"#.utf8))
        expectSameReading(Array(#"{"data":{"b":["#.utf8) + [0x22, 0xC3, 0x22] + Array("]}}".utf8))
        var generator = CanonicalJSONEquivalenceTests.Generator(state: 99)
        for _ in 0..<2_000 {
            let value = generator.value()
            expectSameReading(CanonicalJSONWriter.encode(value))
            expectSameReading(CanonicalJSONWriter.encode(.object(["k": value, "id": .string("x")])))
            expectSameReading(CanonicalJSONWriter.encode(.object(["data": value, "id": .string("x")])))
        }
    }

    @Test("attributes by name are the dictionary's values, and the other members its other members")
    func attributesMatchDictionary() {
        let names =
            EventEnvelope.Attribute.allCases.map(\.rawValue) + [
                "ID", "extra", "Data", "a", "zz", "é", "e\u{301}", "", "dataschema ", "userId",
            ]
        // Names and values as JSON text, for what an encoder never writes: escaped names of
        // attributes, and the values read from their bytes (times, the well-known values)
        // escaped, out of range, or a byte away from one.
        let escapedNames = [#""\u0069d""#, #""tim\u0065""#, #""\u0074ype""#, #""sourc\u00e9""#]
        let values = [
            #""2026-11-28T12:00:00.000Z""#, #""2026-11-28T12:00:00Z""#, #""2026-02-30T12:00:00.000Z""#,
            #""2026-11-28T12:00:00.0001Z""#, #""2026-11-28T12:00:00+01:00""#, #""\u0032026-11-28T12:00:00.000Z""#,
            #""2026-11-28T12:00:00.000Ｚ""#, #""1969-12-31T23:59:59.999Z""#, #""ledger.event.v1""#,
            #""ledger.event.v2""#, #""ledger.event.v1 ""#, #""ledger\u002eevent.v1""#, #""application/json""#,
            #""application\/json""#, #""/workers/payments""#, #""/workers/paymentś""#,
            #""urn:intent-pipeline:schema:ledger.event:v1""#, "\"ledger.event.v1\u{1}\"", #""ledger.event.v1"#,
        ]
        var generator = CanonicalJSONEquivalenceTests.Generator(state: 5)
        for _ in 0..<5_000 {
            // Written member by member, so a name may be repeated.
            let members = (0..<Int(generator.next() % 18)).map { _ in
                let name =
                    generator.next() % 8 == 0
                    ? Array(generator.pick(escapedNames).utf8)
                    : CanonicalJSONWriter.encode(.string(generator.pick(names)))
                let value =
                    generator.next() % 3 == 0
                    ? Array(generator.pick(values).utf8) : CanonicalJSONWriter.encode(generator.value(depth: 3))
                return name + Array(":".utf8) + value
            }
            expectSameReading(Array("{".utf8) + Array(members.joined(separator: Array(",".utf8))) + Array("}".utf8))
        }
    }

    @Test("an envelope decoded with data deferred equals the one decoded with data parsed, or both refuse alike")
    func deferredEqualsParsed() throws {
        let event = EventEnvelope(
            id: "e1", source: "/voice/x", type: "t.v1", time: Date(timeIntervalSince1970: 1_795_000_000),
            subject: "s", userID: "u", conversationID: "c", intentID: "i",
            data: .object(["a": .array([.integer(1), .string("é")]), "b": .null]))
        guard case .object(let object) = try JSONParser.parse(event.encoded()) else {
            Issue.record("an envelope is not an object")
            return
        }
        var documents = [JSONValue.object(object)] + PayloadCodingEquivalenceTests.damaged(.object(object))
        documents.append(.object(object.merging(["traceparent": .string("00-x")]) { old, _ in old }))
        var compared = 0
        for document in documents {
            let bytes = CanonicalJSONWriter.encode(document)
            let parsed = Result { () throws(EventDecodingError) in try EventEnvelope.decode(bytes, deferringData: false)
            }
            let deferred = Result { () throws(EventDecodingError) in try EventEnvelope.decode(bytes) }
            switch (parsed, deferred) {
            case (.success(let expected), .success(let read)):
                #expect(read == expected && read.data == expected.data, "\(document)")
                #expect(read.encoded() == expected.encoded(), "\(document)")
            case (.failure(let expected), .failure(let error)):
                #expect("\(error)" == "\(expected)", "\(document)")
            default:
                Issue.record("\(document): \(parsed) against \(deferred)")
            }
            compared += 1
        }
        #expect(compared > 100)
    }
}
