import ContactResolution
import Foundation
import IntentResolution
import Intents
import Testing

@testable import IntentEvents

/// Payload types straight to and from ``JSONValue`` against Foundation's
/// encoder and decoder over canonical text, which they replace per record:
/// the same JSON out, the same values in, and the same payloads refused,
/// for every intent and for every single-field damage to each.
@Suite("Payload coding equivalence")
struct PayloadCodingEquivalenceTests {
    static var payloads: [IntentRequested] {
        IntentSchemaTests.everyIntent.enumerated().map { IntentRequested(turn: $0.offset + 1, intent: $0.element) }
    }

    static var reports: [IntentResolutionReport] {
        let contacts = [
            Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", handles: ["+86 1"]),
            Contact(id: "yulia", displayName: "Юлия Щукина", handles: ["+7 2"]),
        ]
        let book = ContactBook(contacts: contacts)
        return payloads.map { IntentResolver().resolve($0, contacts: book) }
    }

    /// The value with one field removed or replaced, for every field at every depth.
    static func damaged(_ value: JSONValue) -> [JSONValue] {
        let replacements: [JSONValue] = [
            .null, .bool(true), .integer(7), .integer(-1), .number(1.5), .string("x"), .array([]), .object([:]),
            .array([.integer(1)]),
        ]
        switch value {
        case .object(let members):
            var variants: [JSONValue] = [.object(members.merging(["unknownField": .integer(1)]) { old, _ in old })]
            for (key, member) in members {
                var removed = members
                removed[key] = nil
                variants.append(.object(removed))
                for replacement in replacements + damaged(member) {
                    var replaced = members
                    replaced[key] = replacement
                    variants.append(.object(replaced))
                }
            }
            return variants
        case .array(let elements):
            return elements.indices.flatMap { index in
                (replacements + damaged(elements[index])).map { replacement in
                    var replaced = elements
                    replaced[index] = replacement
                    return JSONValue.array(replaced)
                }
            }
        default:
            return []
        }
    }

    func foundationValue(_ value: some Encodable) throws -> JSONValue {
        try JSONParser.parse(CanonicalJSON.foundationEncode(value))
    }

    func compareDecoding<T: Codable>(_ type: T.Type, _ value: JSONValue) throws {
        let text = Data(CanonicalJSON.foundationEncode(value))
        let foundation = try? JSONDecoder().decode(T.self, from: text)
        let direct = try? JSONValueDecoder.decode(T.self, from: value)
        #expect((foundation == nil) == (direct == nil), "\(value)")
        if let foundation, let direct {
            #expect(try JSONValueEncoder.encode(direct) == foundationValue(foundation), "\(value)")
        }
    }

    @Test("a value taken whole counts every member and element as read, once")
    func wholeValuesAreRead() throws {
        let arguments: JSONValue = .object([
            "amount": .object(["number": .integer(3)]),
            "names": .object(["names": .array([.string("a"), .string("b")])]),
        ])
        let whole = try JSONValueDecoder.decodeReadingEverything([String: MessageArgument].self, from: arguments)
        #expect(whole.readEverything)
        #expect(whole.value["names"] == .names(["a", "b"]))
        // Read twice (the same member as a value and as an object): not everything exactly once.
        struct Twice: Decodable {
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                _ = try container.decode(JSONValue.self, forKey: AnyKey("names"))
                _ = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("names"))
                _ = try container.decode(JSONValue.self, forKey: AnyKey("amount"))
            }
        }
        #expect(try !JSONValueDecoder.decodeReadingEverything(Twice.self, from: arguments).readEverything)
    }

    @Test("payloads encode to the JSON value Foundation's text gives")
    func encoding() throws {
        for payload in Self.payloads { #expect(try JSONValueEncoder.encode(payload) == foundationValue(payload)) }
        for report in Self.reports { #expect(try JSONValueEncoder.encode(report) == foundationValue(report)) }
        let odd: [String: [Double]] = ["a": [1, 1.5, -0.0, 1e16, 1e300, 0.1, 9.3e18]]
        #expect(try JSONValueEncoder.encode(odd) == foundationValue(odd))
        let unsigned: [UInt64] = [0, UInt64(Int64.max), UInt64.max]
        #expect(try JSONValueEncoder.encode(unsigned) == foundationValue(unsigned))
        let floats: [Float] = [0.1, 1, 3.4e38]
        #expect(try JSONValueEncoder.encode(floats) == foundationValue(floats))
        let special = ["d": Data([1, 2, 255])]
        #expect(try JSONValueEncoder.encode(special) == foundationValue(special))
        let dates = [Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 0.25)]
        #expect(try JSONValueEncoder.encode(dates) == foundationValue(dates))
    }

    @Test("payloads, intact or damaged, decode as Foundation decodes them")
    func decoding() throws {
        var checked = 0
        for payload in Self.payloads {
            let value = try foundationValue(payload)
            try compareDecoding(IntentRequested.self, value)
            for variant in Self.damaged(value) {
                try compareDecoding(IntentRequested.self, variant)
                checked += 1
            }
        }
        for report in Self.reports {
            let value = try foundationValue(report)
            try compareDecoding(IntentResolutionReport.self, value)
            for variant in Self.damaged(value).prefix(2_000) {
                try compareDecoding(IntentResolutionReport.self, variant)
            }
        }
        #expect(checked > 500)
        for number: JSONValue in [.integer(300), .integer(-1), .number(1.5), .number(1e20), .integer(Int64.max)] {
            try compareDecoding([UInt8].self, .array([number]))
            try compareDecoding([Int].self, .array([number]))
            try compareDecoding([UInt64].self, .array([number]))
            try compareDecoding([Double].self, .array([number]))
            try compareDecoding([Float].self, .array([number]))
        }
        // Values taken whole (JSONValueDecoder hands a `JSONValue` over as it is): read as
        // `JSONValue.init(from:)` reads them, a number an Int64 holds exactly as an integer.
        let numbers: JSONValue = .object([
            "a": .number(2.0), "b": .array([.number(1.5), .number(-0.0), .object(["c": .number(3.0)])]),
            "d": .integer(4), "e": .array([.string("x"), .null, .bool(true)]),
        ])
        try compareDecoding([String: JSONValue].self, numbers)
        try compareDecoding([JSONValue].self, .array([numbers, .number(1e300)]))
        for argument: JSONValue in [
            .object(["number": .number(2.0)]), .object(["number": .number(2.5)]), .object(["text": .string("x")]),
            .object(["names": .array([.string("a"), .integer(1)])]),
        ] {
            try compareDecoding(MessageArgument.self, argument)
        }
        try compareDecoding([Date].self, .array([.integer(1), .number(0.25)]))
        try compareDecoding([Data].self, .array([.string("AQL/")]))
        try compareDecoding([Data].self, .array([.string("not base64!")]))
    }
}
