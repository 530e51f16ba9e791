import Foundation
import IntentEvents
import IntentWorkers
import Kafka
import PipelineTopics
import Testing

/// The CloudEvents 1.0 Kafka protocol binding, against its specification's
/// examples (kafka-protocol-binding.md, sections 3.2 and 3.3), adapted only
/// where this pipeline requires more (JSON data, its user and conversation
/// extension attributes).
@Suite("CloudEvents Kafka binding: binary and structured mode")
struct CloudEventsBindingTests {
    /// The binary-mode example's headers, with JSON data and the pipeline's required extensions.
    static func binaryExample(contentType: String? = "application/json") -> [KafkaHeader] {
        var headers = [
            KafkaHeader(key: "ce_specversion", string: "1.0"),
            KafkaHeader(key: "ce_type", string: "com.example.someevent"),
            KafkaHeader(key: "ce_source", string: "/mycontext/subcontext"),
            KafkaHeader(key: "ce_id", string: "1234-1234-1234"),
            KafkaHeader(key: "ce_time", string: "2018-04-05T03:56:24Z"),
            KafkaHeader(key: "ce_userid", string: "mykey"),
            KafkaHeader(key: "ce_conversationid", string: "c1"),
            KafkaHeader(key: "ce_comexampleextension1", string: "value"),
            KafkaHeader(key: "ce_traceparent", string: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
        ]
        if let contentType { headers.append(KafkaHeader(key: "content-type", string: contentType)) }
        return headers
    }

    static func record(_ headers: [KafkaHeader], value: String? = #"{"much":"wow"}"#) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: "mytopic", partition: 0, offset: 7, key: Array("mykey".utf8), value: value.map { Array($0.utf8) },
            headers: headers, timestamp: nil)
    }

    @Test("the binary-mode example becomes its structured event: attributes, extensions and data")
    func binaryExample() throws {
        let message = Self.record(Self.binaryExample())
        #expect(CloudEventsBinding.mode(of: message.headers) == .binary)
        let structured = try message.structuredEvent()
        #expect(structured.headers == message.headers, "headers are kept (the signature is among them)")
        let event = try EventEnvelope.decode(try #require(structured.value))
        #expect(event.id == "1234-1234-1234")
        #expect(event.type == "com.example.someevent")
        #expect(event.source == "/mycontext/subcontext")
        #expect(event.time == Date(timeIntervalSince1970: 1_522_900_584))
        #expect(event.userID == "mykey")
        #expect(event.data == .object(["much": .string("wow")]))
        #expect(event.extensions["comexampleextension1"] == .string("value"))
        #expect(event.extensions["traceparent"] == .string("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
        #expect(structured.value == event.encoded(), "the assembled value is the event's canonical form")
    }

    @Test("media type parameters are accepted; JSON data without content-type too")
    func contentTypes() throws {
        for contentType in ["application/json; charset=utf-8", "Application/JSON", nil] {
            let event = try EventEnvelope.decode(
                try #require(try Self.record(Self.binaryExample(contentType: contentType)).structuredEvent().value))
            #expect(event.data == .object(["much": .string("wow")]))
        }
    }

    @Test("the structured-mode example is read as it is")
    func structuredExample() throws {
        let headers = [KafkaHeader(key: "content-type", string: "application/cloudevents+json; charset=UTF-8")]
        let value =
            #"{"specversion":"1.0","type":"com.example.someevent","source":"/mycontext/subcontext","id":"1234-1234-1234","time":"2018-04-05T03:56:24Z","comexampleextension1":"value","datacontenttype":"application/json","userid":"mykey","conversationid":"c1","data":{"much":"wow"}}"#
        let message = Self.record(headers + [KafkaHeader(key: "ce_specversion", string: "1.0")], value: value)
        #expect(CloudEventsBinding.mode(of: message.headers) == .structured, "content-type decides")
        #expect(try message.structuredEvent() == message)
        let event = try EventEnvelope.decode(Array(value.utf8))
        #expect(event.extensions["comexampleextension1"] == .string("value"))
        // Records without any header were always read as structured events.
        #expect(CloudEventsBinding.mode(of: []) == .structured)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var headers: [KafkaHeader]
        var value: String?
        var reason: EventDecodingError.Reason
        var field: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = {
        func replacing(_ key: String, with value: String?) -> [KafkaHeader] {
            var headers = binaryExample().filter { $0.key != key }
            if let value { headers.append(KafkaHeader(key: key, string: value)) }
            return headers
        }
        let example = binaryExample()
        return [
            Refusal(
                name: "the example's Avro data", headers: binaryExample(contentType: "application/avro"),
                value: #"{"much":"wow"}"#, reason: .schemaInvalid, field: "content-type"),
            Refusal(
                name: "a time that is not RFC 3339", headers: replacing("ce_time", with: "yesterday"),
                value: #"{"a":1}"#, reason: .schemaInvalid, field: "ce_time"),
            Refusal(
                name: "no id", headers: replacing("ce_id", with: nil), value: #"{"a":1}"#, reason: .schemaInvalid,
                field: "ce_id"),
            Refusal(
                name: "an attribute name with capitals",
                headers: example + [KafkaHeader(key: "ce_TraceParent", string: "x")],
                value: #"{"a":1}"#, reason: .schemaInvalid, field: "ce_TraceParent"),
            Refusal(
                name: "an attribute given twice", headers: example + [KafkaHeader(key: "ce_id", string: "other")],
                value: #"{"a":1}"#, reason: .schemaInvalid, field: "ce_id"),
            Refusal(
                name: "data as a header", headers: example + [KafkaHeader(key: "ce_data", string: "{}")],
                value: #"{"a":1}"#, reason: .schemaInvalid, field: "ce_data"),
            Refusal(
                name: "a header that is not UTF-8",
                headers: example + [KafkaHeader(key: "ce_note", value: [0xff, 0xfe])],
                value: #"{"a":1}"#, reason: .schemaInvalid, field: "ce_note"),
            Refusal(
                name: "a value that is not JSON", headers: example, value: "<much wow=\"xml\"/>", reason: .unparseable,
                field: "value"),
            Refusal(name: "no value", headers: example, value: nil, reason: .schemaInvalid, field: "value"),
            Refusal(
                name: "another spec version", headers: replacing("ce_specversion", with: "0.3"), value: #"{"a":1}"#,
                reason: .unsupportedSpecVersion, field: "ce_specversion"),
        ]
    }()

    @Test("an invalid binary-mode event is refused with the header that holds the fault", arguments: refusals)
    func refusesInvalid(_ refusal: Refusal) {
        let error = #expect(throws: EventDecodingError.self) {
            _ = try Self.record(refusal.headers, value: refusal.value).structuredEvent()
        }
        #expect(error?.reason == refusal.reason, "\(String(describing: error))")
        #expect(error?.field == refusal.field, "\(String(describing: error))")
    }

    @Test("a dead letter says what it holds: the original's content-type, or opaque bytes; a reference is opaque")
    func deadLetterContentType() {
        func contentTypes(_ record: KafkaProducerMessage) -> [String?] {
            record.headers.filter { $0.key == CloudEventsBinding.contentTypeHeader }.map(\.stringValue)
        }
        let error = EventDecodingError(.unparseable, "not JSON")
        let bare = KafkaConsumerMessage(
            topic: "in", partition: 0, offset: 1, key: nil, value: [1, 2], headers: [], timestamp: nil)
        #expect(
            contentTypes(DeadLetter.record(for: bare, error: error, worker: "w", topic: "dlq")) == [
                "application/octet-stream"
            ])
        var typed = bare
        typed.headers = [KafkaHeader(key: "content-type", string: "application/avro")]
        #expect(
            contentTypes(DeadLetter.record(for: typed, error: error, worker: "w", topic: "dlq")) == ["application/avro"]
        )
        #expect(
            contentTypes(DeadLetter.reference(for: typed, error: error, worker: "w", topic: "dlq")) == [
                "application/octet-stream"
            ])
    }

    @Test("an event sent in binary mode reads back as the same event, its signature checking")
    func roundTrip() throws {
        var event = EventEnvelope(
            id: "e-1", source: "/voice/test", type: "intent.smoke.ping.v1",
            time: Date(timeIntervalSince1970: 1_795_000_000.5),
            subject: "i-1", dataSchema: "urn:x", userID: "孙波", conversationID: "c", intentID: "i-1", causationID: nil,
            data: .object(["sequence": .integer(1), "message": .string("quote\" /slash 😀")]))
        try event.extensions.set("traceparent", .string("00-1-2-01"))
        try event.extensions.set("sequence", .integer(42))
        let keys = EventAuthenticator(keys: ["/voice/test": Array(repeating: 7, count: 32)])
        let produced = KafkaProducerMessage(topic: "t", binaryModeEvent: event, signedWith: keys)
        #expect(produced.headers.contains(KafkaHeader(key: "content-type", string: "application/json")))
        let consumed = KafkaConsumerMessage(
            topic: "t", partition: 0, offset: 0, key: produced.key, value: produced.value, headers: produced.headers,
            timestamp: nil)
        let structured = try consumed.structuredEvent()
        let decoded = try EventEnvelope.decode(try #require(structured.value))
        #expect(decoded.data == event.data)
        #expect(decoded.extensions["sequence"] == .string("42"), "headers carry text: an integer arrives as its string")
        #expect(decoded.extensions["traceparent"] == .string("00-1-2-01"))
        try keys.verify(decoded, received: structured.value, signature: structured.signature)
        // A changed header no longer verifies.
        var tampered = consumed
        tampered.headers = tampered.headers.map {
            $0.key == "ce_traceparent" ? KafkaHeader(key: $0.key, string: "00-9-9-01") : $0
        }
        let forged = try EventEnvelope.decode(try #require(try tampered.structuredEvent().value))
        #expect(throws: EventDecodingError.self) {
            try keys.verify(forged, received: try tampered.structuredEvent().value, signature: tampered.signature)
        }
    }
}
