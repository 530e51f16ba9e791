import Foundation
import Testing

@testable import IntentEvents

/// Strict payload decoding that skips the re-encoding when every member was
/// read, against the decoding it replaces (the previous decoder, re-encoding,
/// comparing keys): for every payload type, intact and with every
/// single-field damage, the same payload accepted or the same error refused
/// (reason, field and message).
@Suite("Strict decoding equivalence")
struct StrictDecodingEquivalenceTests {
    static let base = EventEnvelope(
        id: "e", source: "/voice/test", type: "t", time: Date(timeIntervalSince1970: 1_795_000_000), userID: "u",
        conversationID: "c", data: .null)

    /// What the previous `decodeData` returned: the payload (as its JSON) or its error.
    func legacy<T: Codable>(_ type: T.Type, _ data: JSONValue) -> Result<JSONValue, EventDecodingError> {
        do {
            let payload = try LegacyJSONValueDecoder.decode(T.self, from: data)
            let reencoded = try JSONValueEncoder.encode(payload)
            if let unknown = StrictDecoding.firstUnknownField(original: data, reencoded: reencoded, path: "$.data") {
                return .failure(EventDecodingError(.schemaInvalid, field: unknown, "unknown field"))
            }
            return .success(reencoded)
        } catch {
            return .failure(EventDecodingError(.schemaInvalid, field: "$.data", describe(error)))
        }
    }

    func current<T: Codable>(_ type: T.Type, _ data: JSONValue) -> Result<JSONValue, EventDecodingError> {
        var event = Self.base
        event.data = data
        do {
            return .success(try JSONValueEncoder.encode(try event.decodeData(as: T.self)))
        } catch let error as EventDecodingError {
            return .failure(error)
        } catch {
            return .failure(EventDecodingError(.unparseable, "\(error)"))
        }
    }

    func reencoding<T: Codable>(_ type: T.Type, _ data: JSONValue) -> Result<JSONValue, EventDecodingError> {
        do {
            return .success(try JSONValueEncoder.encode(try EventEnvelope.decodeDataByReencoding(data, as: T.self)))
        } catch let error as EventDecodingError {
            return .failure(error)
        } catch {
            return .failure(EventDecodingError(.unparseable, "\(error)"))
        }
    }

    /// Compares on `payload` and its damaged variants; returns how many variants
    /// were accepted without re-encoding, refused, and checked.
    func compare<T: Codable>(_ payload: T, limit: Int) throws -> (fast: Int, refused: Int, checked: Int) {
        let value = try JSONValueEncoder.encode(payload)
        #expect(try JSONValueDecoder.decodeReadingEverything(T.self, from: value).readEverything, "\(T.self)")
        var counts = (fast: 0, refused: 0, checked: 0)
        for variant in [value] + PayloadCodingEquivalenceTests.damaged(value).prefix(limit) {
            let expected = legacy(T.self, variant)
            #expect(current(T.self, variant) == expected, "\(T.self): \(variant)")
            #expect(reencoding(T.self, variant) == expected, "\(T.self): \(variant)")
            if case .failure = expected { counts.refused += 1 }
            if (try? JSONValueDecoder.decodeReadingEverything(T.self, from: variant))?.readEverything == true {
                counts.fast += 1
                if case .failure(let error) = expected { Issue.record("read everything, yet refused: \(error)") }
            }
            counts.checked += 1
        }
        return counts
    }

    @Test("every payload type, intact or damaged, is accepted or refused exactly as by re-encoding")
    func payloadsMatch() throws {
        var totals = (fast: 0, refused: 0, checked: 0)
        for payload in try CanonicalEncoderEquivalenceTests.everyPayload() {
            let counts = try compare(payload, limit: 400)
            totals = (totals.fast + counts.fast, totals.refused + counts.refused, totals.checked + counts.checked)
        }
        #expect(totals.checked > 5_000)
        #expect(totals.fast > 100)
        #expect(totals.refused > 1_000)
    }

    @Test("unknown fields, nulls for optionals and damaged JSON values are refused as before")
    func oddShapesMatch() throws {
        let decimal: [String: Decimal] = ["a": Decimal(string: "1.25")!]
        for data: JSONValue in [
            .object(["a": .integer(1), "b": .null]), .object(["a": .object(["x": .null])]), .object([:]), .null,
            .object(["a": .array([.integer(1), .object(["deep": .integer(2)])])]),
        ] {
            #expect(current([String: JSONValue].self, data) == legacy([String: JSONValue].self, data))
            #expect(current(JSONValue.self, data) == legacy(JSONValue.self, data))
            #expect(current(Optionals.self, data) == legacy(Optionals.self, data))
            #expect(current([String: Decimal].self, data) == legacy([String: Decimal].self, data))
        }
        _ = try compare(Optionals(a: 1, b: "x", list: [nil, 2]), limit: 500)
        _ = try compare(decimal, limit: 100)
        _ = try compare(["k": [Data([1, 2]), Data()]], limit: 100)
    }

    struct Optionals: Codable {
        var a: Int?
        var b: String?
        var list: [Int?]?
    }
}
