import Foundation
import Testing

@testable import IntentEvents

/// Envelope decoding reads the top-level object as a list of members and
/// picks attributes by name, instead of parsing it into a dictionary and
/// looking each up: the same documents read or refused (same failures), the
/// same attribute values (a repeated name keeping its first), the same first
/// unknown name.
@Suite("Envelope decoding equivalence")
struct EnvelopeDecodingEquivalenceTests {
    /// The members as the parser's dictionary holds them: the first value of each key.
    func dictionary(_ members: [(key: String, value: JSONValue)]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in members where object[key] == nil { object[key] = value }
        return object
    }

    func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }
        let topLevel = Result { () throws(JSONParser.Failure) in try JSONParser.parseTopLevel(bytes) }
        switch (parsed, topLevel) {
        case (.failure(let expected), .failure(let failure)):
            #expect(failure.description == expected.description, sourceLocation: sourceLocation)
        case (.success(.object(let object)), .success(.members(let members))):
            #expect(dictionary(members) == object, sourceLocation: sourceLocation)
        case (.success(let value), .success(.value(let read))):
            #expect(read == value, sourceLocation: sourceLocation)
            if case .object = value { Issue.record("an object read as a value", sourceLocation: sourceLocation) }
        default:
            Issue.record("\(parsed) read as \(topLevel)", sourceLocation: sourceLocation)
        }
        // Deferring a member: the same documents read or refused, the same failures, the other
        // members as they were, and the bytes kept parsing to the member's first value.
        for name in ["a", "k", "x"] {
            let deferring = Result { () throws(JSONParser.Failure) in
                try JSONParser.parseTopLevel(bytes, deferring: name)
            }
            switch (topLevel, deferring) {
            case (.failure(let expected), .failure(let failure)):
                #expect(failure.description == expected.description, sourceLocation: sourceLocation)
            case (.success(.members(let members)), .success((.members(let others), let deferred))):
                let kept = members.filter { $0.key != name }
                #expect(others.map(\.key) == kept.map(\.key), sourceLocation: sourceLocation)
                #expect(others.map(\.value) == kept.map(\.value), sourceLocation: sourceLocation)
                let first = members.first { $0.key == name }?.value
                if let first {
                    let kept = try? JSONParser.parse(deferred ?? [])
                    #expect(kept == first, sourceLocation: sourceLocation)
                } else {
                    #expect(deferred == nil, sourceLocation: sourceLocation)
                }
            case (.success(.value(let value)), .success((.value(let read), let deferred))):
                #expect(read == value && deferred == nil, sourceLocation: sourceLocation)
            default:
                Issue.record("\(topLevel) read deferring \(name) as \(deferring)", sourceLocation: sourceLocation)
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
        for input in inputs { expectSameReading(Array(input.utf8)) }
        // Invalid UTF-8 in a string without escapes, where a deferred value is only checked.
        expectSameReading(Array(#"{"a":"x"#.utf8) + [0xFF] + Array(#"","k":1}"#.utf8))
        expectSameReading(Array(#"{"k":["#.utf8) + [0x22, 0xC3, 0x22] + Array("]}".utf8))
        var generator = CanonicalJSONEquivalenceTests.Generator(state: 99)
        for _ in 0..<2_000 {
            let value = generator.value()
            expectSameReading(CanonicalJSONWriter.encode(value))
            expectSameReading(CanonicalJSONWriter.encode(.object(["k": value, "id": .string("x")])))
        }
    }

    @Test("attributes by name are the dictionary's values, and the other members its other members")
    func attributesMatchDictionary() {
        let names =
            EventEnvelope.Attribute.allCases.map(\.rawValue) + [
                "ID", "extra", "Data", "a", "zz", "é", "e\u{301}", "", "dataschema ", "userId",
            ]
        var generator = CanonicalJSONEquivalenceTests.Generator(state: 5)
        for _ in 0..<5_000 {
            let members = (0..<Int(generator.next() % 18)).map { _ in
                (key: generator.pick(names), value: generator.value(depth: 3))
            }
            let object = dictionary(members)
            let read = EventEnvelope.attributes(members)
            for attribute in EventEnvelope.Attribute.allCases {
                #expect(read.values[attribute.position] == object[attribute.rawValue], "\(members)")
            }
            let known = Set(EventEnvelope.Attribute.allCases.map(\.rawValue))
            // The other members (extension attributes), a repeated name keeping its first value.
            #expect(dictionary(read.others) == object.filter { !known.contains($0.key) }, "\(members)")
        }
    }
}
