import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// `LedgerEvent.decode(from:)` reads the parsed JSON directly; it must accept
/// exactly what the strict `Codable` decoding accepts, and decode it to the same event.
@Suite("Ledger events: the direct decoder agrees with strict Codable decoding")
struct LedgerEventDecodingTests {
    static func envelope(_ data: JSONValue) -> EventEnvelope {
        EventEnvelope(
            id: "e", source: PipelineSource.payments, type: LedgerEvent.type, time: Date(timeIntervalSince1970: 0),
            userID: "u", conversationID: "c", data: data)
    }

    /// The data as JSON, parsed back into a `JSONValue`.
    static func json(_ event: LedgerEvent) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(CanonicalJSON.encode(event)))
    }

    @Test("every kind, every optional present or absent: the same event both ways")
    func sameEvents() throws {
        for event in LedgerEventCanonicalTests.events {
            let envelope = Self.envelope(try Self.json(event))
            let direct = try LedgerEvent.decode(from: envelope)
            #expect(direct == event)
            #expect(direct == (try envelope.decodeData(as: LedgerEvent.self)))
        }
    }

    @Test("malformed data is refused both ways, with the strict decoder's error")
    func sameRefusals() throws {
        let event = try #require(LedgerEventCanonicalTests.events.first { $0.amount != nil && $0.expiresAt != nil })
        guard case .object(let members) = try Self.json(event) else {
            Issue.record("a ledger event is a JSON object")
            return
        }
        func variant(_ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
            var copy = members
            change(&copy)
            return .object(copy)
        }
        let malformed: [(String, JSONValue)] = [
            ("unknown field", variant { $0["extra"] = .string("x") }),
            ("no id", variant { $0["id"] = nil }),
            ("no entries", variant { $0["entries"] = nil }),
            ("unknown kind", variant { $0["kind"] = .string("steal") }),
            ("number as id", variant { $0["id"] = .integer(7) }),
            (
                "amount as a number",
                variant { $0["amount"] = .object(["amount": .number(1.5), "currency": .string("CNY")]) }
            ),
            (
                "lower-case currency",
                variant { $0["amount"] = .object(["amount": .string("1"), "currency": .string("cny")]) }
            ),
            (
                "entry with an extra field",
                variant {
                    $0["entries"] = .array([
                        .object([
                            "account": .string("a"), "side": .string("debit"), "extra": .bool(true),
                            "amount": .object(["amount": .string("1"), "currency": .string("CNY")]),
                        ])
                    ])
                }
            ),
            ("bad time", variant { $0["expiresAt"] = .string("yesterday") }),
            ("verified as a string", variant { $0["verified"] = .string("yes") }),
            // Strict decoding finds null in no re-encoding: refused, not taken as absent.
            ("null note", variant { $0["note"] = .null }),
            ("null amount", variant { $0["amount"] = .null }),
        ]
        for (name, data) in malformed {
            let envelope = Self.envelope(data)
            #expect(throws: EventDecodingError.self, "\(name)") { try envelope.decodeData(as: LedgerEvent.self) }
            #expect(throws: EventDecodingError.self, "\(name)") { try LedgerEvent.decode(from: envelope) }
        }
    }
}
