import Foundation
import IntentEvents
import Testing

let sampleTime = Date(timeIntervalSince1970: 1_763_726_400.25)

func sampleEnvelope(data: JSONValue = .object(["sequence": .integer(1), "message": .string("hello 小明")]))
    -> EventEnvelope
{
    EventEnvelope(
        id: "evt-1", source: "/voice/test", type: SmokePing.type, time: sampleTime, subject: "intent-1",
        dataSchema: SmokePing.dataSchema, userID: "user-1", conversationID: "conv-1", intentID: "intent-1",
        causationID: "evt-0", data: data)
}

/// Encodes a JSON object literal, to build malformed events by hand.
func json(_ object: [String: Any]) -> [UInt8] {
    Array(try! JSONSerialization.data(withJSONObject: object))
}

func validObject() -> [String: Any] {
    [
        "specversion": "1.0", "id": "e1", "source": "/voice", "type": "intent.smoke.ping.v1",
        "time": "2026-11-21T10:00:00Z", "datacontenttype": "application/json", "userid": "u1",
        "conversationid": "c1", "data": ["sequence": 1, "message": "x"],
    ]
}

@Suite("Event envelope")
struct EventEnvelopeTests {
    @Test("encodes and decodes to the same envelope")
    func roundTrip() throws {
        let envelope = sampleEnvelope()
        let decoded = try EventEnvelope.decode(envelope.encoded())
        #expect(decoded == envelope)
        #expect(try decoded.decodeData(as: SmokePing.self) == SmokePing(sequence: 1, message: "hello 小明"))
    }

    @Test("encoding is canonical: sorted keys, stable bytes")
    func canonical() throws {
        let text = String(decoding: sampleEnvelope().encoded(), as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"causationid":"evt-0","conversationid":"conv-1","data":{"message":"hello 小明","sequence":1}"#))
        #expect(text.contains(#""time":"2025-11-21T12:00:00.250Z""#))
        #expect(sampleEnvelope().encoded() == sampleEnvelope().encoded())
    }

    @Test("a hand-written minimal event decodes; a time without fractions is accepted")
    func minimal() throws {
        let envelope = try EventEnvelope.decode(json(validObject()))
        #expect(envelope.userID == "u1")
        #expect(envelope.intentID == nil)
        #expect(envelope.time == Date(timeIntervalSince1970: 1_795_255_200))
    }

    @Test(
        "a time with more than three fraction digits is that time to the millisecond, and survives its canonical form",
        arguments: ["2026-11-21T10:00:00.0002Z", "2026-11-21T10:00:00.123456Z", "2026-11-21T10:00:00.9996Z"])
    func subMillisecondTimes(_ time: String) throws {
        var object = validObject()
        object["time"] = time
        let envelope = try EventEnvelope.decode(json(object))
        // Found by fuzzing (Fuzz/, fuzz-envelope): the decoded time kept its microseconds while the
        // canonical form (what a signature covers) rounds to milliseconds.
        #expect(try EventEnvelope.decode(envelope.encoded()) == envelope)
        let milliseconds = envelope.time.timeIntervalSince1970 * 1000
        #expect(milliseconds == milliseconds.rounded())
    }

    @Test("a user id must be in NFC: one spelling per user, so one partition and one decider per account")
    func userIDNormalization() throws {
        var object = validObject()
        object["userid"] = "\u{212A}ATE"  // KELVIN SIGN: canonically equivalent to "KATE"
        let error = #expect(throws: EventDecodingError.self) { try EventEnvelope.decode(json(object)) }
        #expect(error?.field == "$.userid")
        object["userid"] = "Jose\u{301}"  // decomposed é
        #expect(throws: EventDecodingError.self) { try EventEnvelope.decode(json(object)) }
        for accepted in ["KATE", "José", "孙波", "Юля"] {
            object["userid"] = accepted
            #expect(try EventEnvelope.decode(json(object)).userID == accepted)
        }
    }

    struct Rejection: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let reason: EventDecodingError.Reason
        let field: String?
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = {
        func mutated(_ change: (inout [String: Any]) -> Void) -> [UInt8] {
            var object = validObject()
            change(&object)
            return json(object)
        }
        return [
            Rejection(name: "not JSON", bytes: Array("{not json".utf8), reason: .unparseable, field: nil),
            Rejection(name: "a JSON array", bytes: Array("[1,2]".utf8), reason: .unparseable, field: nil),
            Rejection(
                name: "missing userid", bytes: mutated { $0["userid"] = nil }, reason: .schemaInvalid, field: "$.userid"
            ),
            Rejection(name: "empty id", bytes: mutated { $0["id"] = "" }, reason: .schemaInvalid, field: "$.id"),
            Rejection(
                name: "numeric source", bytes: mutated { $0["source"] = 7 }, reason: .schemaInvalid, field: "$.source"),
            Rejection(
                name: "an attribute name with capitals", bytes: mutated { $0["userId"] = "u2" }, reason: .schemaInvalid,
                field: "$.userId"),
            Rejection(
                name: "an attribute name with an underscore", bytes: mutated { $0["intent_id"] = "i" },
                reason: .schemaInvalid, field: "$.intent_id"),
            Rejection(
                name: "an attribute name over 20 characters",
                bytes: mutated { $0["abcdefghijklmnopqrstu"] = "x" }, reason: .schemaInvalid,
                field: "$.abcdefghijklmnopqrstu"),
            Rejection(
                name: "an object-valued extension", bytes: mutated { $0["traceparent"] = ["a": 1] },
                reason: .schemaInvalid, field: "$.traceparent"),
            Rejection(
                name: "an array-valued extension", bytes: mutated { $0["tags"] = ["a"] }, reason: .schemaInvalid,
                field: "$.tags"),
            Rejection(
                name: "a fractional extension", bytes: mutated { $0["sequence"] = 1.5 }, reason: .schemaInvalid,
                field: "$.sequence"),
            Rejection(
                name: "an extension integer beyond 32 bits", bytes: mutated { $0["sequence"] = 2_147_483_648 },
                reason: .schemaInvalid, field: "$.sequence"),
            Rejection(
                name: "an extension string over 2,048 bytes",
                bytes: mutated { $0["note"] = String(repeating: "x", count: 2049) }, reason: .schemaInvalid,
                field: "$.note"),
            Rejection(
                name: "binary data", bytes: mutated { $0["data_base64"] = "AAAA" }, reason: .schemaInvalid,
                field: "$.data_base64"),
            Rejection(
                name: "33 extensions",
                bytes: mutated { object in for index in 0..<33 { object["x\(index)"] = "v" } },
                reason: .schemaInvalid, field: "$.x9"),
            Rejection(
                name: "bad time", bytes: mutated { $0["time"] = "yesterday" }, reason: .schemaInvalid, field: "$.time"),
            Rejection(
                name: "missing data", bytes: mutated { $0["data"] = nil }, reason: .schemaInvalid, field: "$.data"),
            Rejection(
                name: "spec version 0.3", bytes: mutated { $0["specversion"] = "0.3" }, reason: .unsupportedSpecVersion,
                field: "$.specversion"),
            Rejection(
                name: "XML content", bytes: mutated { $0["datacontenttype"] = "text/xml" }, reason: .schemaInvalid,
                field: "$.datacontenttype"),
        ]
    }()

    @Test("malformed events are rejected with a machine-readable reason and the field", arguments: rejections)
    func rejects(_ case: Rejection) {
        #expect {
            _ = try EventEnvelope.decode(`case`.bytes)
        } throws: { error in
            guard let error = error as? EventDecodingError else { return false }
            return error.reason == `case`.reason && error.field == `case`.field
        }
    }

    @Test("valid extension attributes are accepted, kept in name order and written back in canonical order")
    func extensionAttributes() throws {
        var object = validObject()
        object["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        object["aardvark"] = 7
        object["zulu"] = true
        object["partitionkey"] = "u1"
        object["comexampleextension1"] = "value"
        object["gone"] = NSNull()
        let envelope = try EventEnvelope.decode(json(object))
        #expect(
            envelope.extensions.sorted.map(\.name) == [
                "aardvark", "comexampleextension1", "partitionkey", "traceparent", "zulu",
            ])
        #expect(envelope.extensions["aardvark"] == .integer(7))
        #expect(envelope.extensions["zulu"] == .bool(true))
        #expect(envelope.extensions["gone"] == nil)
        // The canonical bytes are Foundation's sorted-keys encoding of the whole object,
        // extensions included: what a signature covers.
        object["gone"] = nil
        object["time"] = "2026-11-21T10:00:00.000Z"
        let reference = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(envelope.encoded() == Array(reference))
        #expect(try EventEnvelope.decode(envelope.encoded()) == envelope)
    }

    @Test("setting an extension checks it as decoding does; removing one drops it")
    func settingExtensions() throws {
        var envelope = sampleEnvelope()
        try envelope.extensions.set("traceparent", .string("00-1-2-01"))
        try envelope.extensions.set("a1", .integer(1))
        #expect(envelope.extensions.sorted.map(\.name) == ["a1", "traceparent"])
        #expect(throws: EventDecodingError.self) { try envelope.extensions.set("Bad", .string("x")) }
        #expect(throws: EventDecodingError.self) { try envelope.extensions.set("ok", .array([])) }
        try envelope.extensions.set("a1", nil)
        #expect(envelope.extensions.sorted.map(\.name) == ["traceparent"])
        #expect(try EventEnvelope.decode(envelope.encoded()).extensions == envelope.extensions)
    }

    @Test("oversized events are rejected before parsing")
    func oversized() {
        let big = sampleEnvelope(data: .string(String(repeating: "x", count: 2_000))).encoded()
        #expect(throws: EventDecodingError(.oversized, "event is \(big.count) bytes; the limit is 1024")) {
            _ = try EventEnvelope.decode(big, maximumBytes: 1024)
        }
    }

    @Test("a payload of the wrong shape names the failing field")
    func payloadErrors() {
        let envelope = sampleEnvelope(data: .object(["sequence": .string("one"), "message": .string("x")]))
        #expect {
            _ = try envelope.decodeData(as: SmokePing.self)
        } throws: { error in
            let error = error as? EventDecodingError
            return error?.reason == .schemaInvalid && error?.message.contains("sequence") == true
        }
    }
}

@Suite("Deterministic event ids")
struct EventIDTests {
    @Test("the same parts give the same id; different parts or splits give different ids")
    func deterministic() {
        #expect(EventID.derived("intent-1", "resolve", "1") == EventID.derived("intent-1", "resolve", "1"))
        #expect(EventID.derived("intent-1", "resolve", "1") != EventID.derived("intent-1", "resolve", "2"))
        #expect(EventID.derived("ab", "c") != EventID.derived("a", "bc"))
    }

    @Test("ids are RFC 9562 version 8 UUIDs")
    func format() throws {
        let id = EventID.derived("x")
        let uuid = try #require(UUID(uuidString: id))
        #expect(uuid.uuidString.lowercased() == id)
        let characters = Array(id)
        #expect(characters[14] == "8")
        #expect("89ab".contains(characters[19]))
    }
}

@Suite("Event times")
struct EventTimeTests {
    @Test("formatting a parsed time gives back the same text, so canonical forms survive round trips")
    func roundTrip() throws {
        for text in [
            "2026-11-21T16:18:14.124Z", "2026-11-21T16:18:14.000Z", "1999-12-31T23:59:59.999Z",
            "2026-01-01T00:00:00.001Z",
        ] {
            let date = try #require(EventTime.parse(text))
            #expect(EventTime.format(date) == text)
            #expect(Timestamp(date).description == text)
        }
        #expect(EventTime.format(try #require(EventTime.parse("2026-11-21T16:18:14Z"))) == "2026-11-21T16:18:14.000Z")
        // Any date: encode → decode → encode is stable.
        for offset in stride(from: 0.0, to: 1.0, by: 0.0371) {
            let date = Date(timeIntervalSince1970: 1_795_000_000 + offset)
            let once = EventTime.format(date)
            #expect(EventTime.format(try #require(EventTime.parse(once))) == once)
        }
    }
}
