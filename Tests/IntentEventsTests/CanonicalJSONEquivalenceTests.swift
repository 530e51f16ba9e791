import Foundation
import Testing

@testable import IntentEvents

/// The fast JSON reader and writer against Foundation, which they replace
/// in every worker's per-record path: the same bytes out (signatures cover
/// them), the same values in, the same inputs refused.
@Suite("Canonical JSON equivalence")
struct CanonicalJSONEquivalenceTests {
    /// Deterministic pseudo-random values with the awkward cases: every
    /// control character, quotes and backslashes, slashes, Han, Cyrillic,
    /// emoji, combining marks, mixed-case and digit keys, integers at the
    /// edges, fractions, large and tiny doubles.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }

        static let pieces: [String] = [
            "a", "Z", "0", "9", " ", "/", "\\", "\"", "'", "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{B}", "\u{C}",
            "\r", "\u{1F}", "\u{7F}", "\u{80}", "é", "e\u{301}", "ä", "孙", "波", "小明", "Щ", "Юлия", "ё", "😀", "\u{2028}",
            "\u{2029}", "\u{FEFF}", "<", ">", "&", "%", "+", "_", "-", ".", "{", "}", "[", "]", ":", ",",
        ]

        mutating func string(maximumLength: Int = 12) -> String {
            (0..<Int(next() % UInt64(maximumLength + 1))).map { _ in pick(Self.pieces) }.joined()
        }

        mutating func key() -> String {
            pick(["a", "A", "aB", "aa", "a1", "a10", "a2", "_x", "é", "e", "contactID", "contacts", "Id", "id", ""])
                + (next() % 3 == 0 ? string(maximumLength: 3) : "")
        }

        mutating func number() -> JSONValue {
            switch next() % 8 {
            case 0: return .integer(pick([0, 1, -1, Int64.max, Int64.min, 1_000_000_007]))
            case 1: return .integer(Int64(bitPattern: next()))
            case 2:
                return .number(
                    pick([
                        0.1, -2.5, 1e-7, 1e300, -1e-300, 123_456_789.5, .leastNonzeroMagnitude,
                        .greatestFiniteMagnitude,
                    ]))
            case 3: return .number(Double(Int64(bitPattern: next()) % 1_000_000) / 1000 + 0.0005)
            default: return .integer(Int64(next() % 100_000))
            }
        }

        mutating func value(depth: Int = 0) -> JSONValue {
            switch next() % (depth > 3 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(next() % 2 == 0)
            case 2: return number()
            case 3, 4: return .string(string())
            case 5: return .array((0..<Int(next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for _ in 0..<Int(next() % 6) { members[key()] = value(depth: depth + 1) }
                return .object(members)
            }
        }
    }

    @Test("the writer produces Foundation's canonical bytes, and the parser reads them back")
    func writerMatchesFoundation() throws {
        var generator = Generator(state: 20_261_123)
        for _ in 0..<3_000 {
            let value = generator.value()
            let expected = CanonicalJSON.foundationEncode(value)
            #expect(CanonicalJSONWriter.encode(value) == expected, "\(value)")
            #expect(CanonicalJSON.encode(value) == expected)
            let parsed = try JSONParser.parse(expected)
            #expect(parsed == (try JSONDecoder().decode(JSONValue.self, from: Data(expected))))
        }
    }

    @Test("envelopes encode to the same bytes as one canonical JSON object")
    func envelopesMatchFoundation() {
        var generator = Generator(state: 7)
        for index in 0..<1_000 {
            let optional: () -> String? = { index % 3 == 0 ? nil : "opt-\(index)/ü" }
            let envelope = EventEnvelope(
                id: generator.string(), source: "/voice/\(generator.string())", type: generator.string(),
                time: Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000) / 1000),
                subject: optional(), dataSchema: index % 4 == 0 ? nil : "https://x/y.json",
                userID: generator.string(), conversationID: generator.string(), intentID: optional(),
                causationID: index % 5 == 0 ? nil : generator.string(), data: generator.value())
            #expect(envelope.encoded() == envelope.foundationEncoded())
        }
    }

    @Test("the parser reads what Foundation's decoder reads, and refuses what it refuses")
    func parserMatchesFoundation() {
        let inputs = [
            #"{"a":1,"a":2}"#, "[1,]", #"{"a":1,}"#, "\u{FEFF}{}", #""\ud800""#, #""\ud83d\ude00""#, #""\uDFFF""#,
            "[1e400]", "[-1e400]", "[1.0000000000000000001]", "[9223372036854775807.0]",
            "[12345678901234567890123]", "[-9223372036854775808]", "[9223372036854775807]", "[0.1e1]", "[2e0]",
            "[-0]", "[-0.0]", "[1e-400]", "[1E+2]", "[100e-2]", "[1.5]", "[tru]", "[true]", "[false]", "[null]",
            #""\x""#, #"["\u0000"]"#, " \n\t\r[1] \n", "[1] []", "\"\u{7F}\"", #"{"":1}"#, "[00]", "[-01]", "[1.5e]",
            "[1.]", "[.5]", "[-]", "[+1]", "\"a\tb\"", "{\"a\":1}x", "nul", #""\/""#, #"["\u00E9\u00e9"]"#, "",
            " ", "{", "[", #"{"a"}"#, #"{"a":}"#, #"{1:2}"#, "[1 2]", #"{"a":1 "b":2}"#, #""abc"#, "[,]", "{,}",
            #"["\ud83d\u0041"]"#, #"{"k":{"n":[1,{"d":"\"\\\/\b\f\n\r\t"}]}}"#,
        ]
        for input in inputs {
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(input.utf8))
            let parsed = try? JSONParser.parse(Array(input.utf8))
            #expect(parsed == foundation, "\(input)")
        }
        let invalidUTF8: [UInt8] = [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]
        #expect((try? JSONParser.parse(invalidUTF8)) == nil)
        // Foundation reads 512 levels of nesting and refuses 513.
        for depth in [512, 513] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(nested.utf8))
            #expect((try? JSONParser.parse(Array(nested.utf8))) == foundation, "depth \(depth)")
            #expect((foundation == nil) == (depth > JSONParser.maximumDepth))
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect((try? JSONParser.parse(Array(deep.utf8))) == nil)
    }
}
