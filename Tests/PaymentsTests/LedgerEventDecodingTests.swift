import Foundation
import Intents
import Payments
import Testing

@testable import IntentEvents

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
            // Against the strict Codable path itself (decodeData takes the direct reader first).
            #expect(direct == (try EventEnvelope.decodeDataByReencoding(envelope.data, as: LedgerEvent.self)))
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
            #expect(throws: EventDecodingError.self, "\(name)") {
                try EventEnvelope.decodeDataByReencoding(envelope.data, as: LedgerEvent.self)
            }
            #expect(throws: EventDecodingError.self, "\(name)") { try LedgerEvent.decode(from: envelope) }
        }
    }

    /// An envelope's bytes around `data` as written.
    static func document(_ data: String) -> [UInt8] {
        Array(
            (#"{"specversion":"1.0","id":"e","source":"/workers/payments","type":"ledger.event.v1","#
                + #""time":"1970-01-01T00:00:00.000Z","userid":"u","conversationid":"c","data":"# + data + "}").utf8)
    }

    @Test("read from a record's bytes (deferred data): the same event, or the same refusal, as from its parsed JSON")
    func bytesAgreeWithParsedJSON() throws {
        var documents = LedgerEventCanonicalTests.events.map {
            Self.document(String(decoding: CanonicalJSON.encode($0), as: UTF8.self))
        }
        let entries =
            #"[{"account":"users/u/available","side":"debit","amount":{"amount":"1.50","currency":"CNY"}},"#
            + #"{"account":"users/u/held","side":"credit","amount":{"amount":"1.50","currency":"CNY"}}]"#
        let base = #""kind":"hold","userID":"u","transferID":"t","amount":{"amount":"1.50","currency":"CNY"}"#
        for data in [
            #"{"id":"d","# + base + #","entries":"# + entries + "}",
            // Whitespace, trailing commas, an escaped key: read as the parser reads them.
            #"{ "\u0069d" : "d" , "# + base + #", "entries" : "# + entries + " , }",
            // A repeated key: parsed JSON keeps the first value.
            #"{"id":"d","id":"e","# + base + #","entries":"# + entries + "}",
            #"{"id":"d","# + base + #","entries":[],"entries":"# + entries + "}",
            #"{"id":"d","# + base + #","entries":"#
                + entries.replacingOccurrences(of: #""side":"debit""#, with: #""side":"debit","side":"credit""#) + "}",
            #"{"id":"d","kind":"hold","userID":"u","amount":{"amount":"1","currency":"CNY","currency":"EUR"},"entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","handles":["a","b",],"verified":true,"entries":[]}"#,
            #"{"id":"d","kind":"accountClosed","userID":"u","accountVersion":12,"entries":[]}"#,
            #"{"id":"d","kind":"accountClosed","userID":"u","accountVersion":-3,"entries":[]}"#,
            // An integer written as a number that is one (parsed JSON holds 2.0 as 2).
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":2.0,"entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":2e0,"entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":2.5,"entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":"2","entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":99999999999999999999,"entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","accountVersion":1,"accountVersion":2,"entries":[]}"#,
            // Refused: wrong types, unknown members, null, a bad time or currency.
            #"{"id":"d","kind":"accountOpened","userID":"u","handles":"a","entries":[]}"#,
            #"{"id":"d","kind":"accountOpened","userID":"u","verified":"true","entries":[]}"#,
            #"{"id":"d","kind":"deposit","userID":"u","note":null,"entries":[]}"#,
            #"{"id":"d","kind":"deposit","userID":"u","extra":1,"entries":[]}"#,
            #"{"id":"d","kind":"deposit","userID":"u","expiresAt":"soon","entries":[]}"#,
            #"{"id":"d","kind":"deposit","userID":"u","amount":{"amount":"1","currency":"cny"},"entries":[]}"#,
            #"{"id":"d","kind":"deposit","userID":"u","entries":[{"account":"a","side":"debit"}]}"#,
            #"{"id":7,"kind":"deposit","userID":"u","entries":[]}"#, "[]", #""d""#,
        ] {
            documents.append(Self.document(data))
        }
        for bytes in documents {
            let parsed = try EventEnvelope.decode(bytes)
            let deferred = try EventEnvelope.decode(bytes, deferringData: true)
            #expect(deferred == parsed)
            let fromJSON = Result { () throws(EventDecodingError) in try LedgerEvent.decode(from: parsed) }
            let fromBytes = Result { () throws(EventDecodingError) in try LedgerEvent.decode(from: deferred) }
            switch (fromJSON, fromBytes) {
            case (.success(let expected), .success(let read)): #expect(read == expected)
            case (.failure(let expected), .failure(let error)): #expect(error.message == expected.message)
            default:
                Issue.record(
                    "\(String(decoding: bytes, as: UTF8.self)): \(fromJSON) from JSON, \(fromBytes) from bytes")
            }
        }
        #expect(documents.count > LedgerEventCanonicalTests.events.count)
    }
}
