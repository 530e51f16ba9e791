import ContactResolution
import Foundation
import IntentResolution
import Intents
import Messaging
import Payments
import Testing

@testable import IntentEvents

/// The direct canonical encoder against the two encodings it replaces: event
/// payloads as ``JSONValueEncoder`` then ``CanonicalJSONWriter`` wrote them,
/// and everything else as Foundation's `JSONEncoder` wrote it. Signatures,
/// event ids and bindings cover these bytes, so not one may change.
@Suite("Canonical encoder equivalence")
struct CanonicalEncoderEquivalenceTests {
    /// One payload of every type an event carries, several of most, as the stages write them.
    static func everyPayload() throws -> [any Codable] {
        var payloads: [any Codable] = PayloadCodingEquivalenceTests.payloads
        payloads += PayloadCodingEquivalenceTests.reports
        for event in try PaymentSchemaTests.stageEvents() {
            payloads.append(try payload(of: event))
        }
        payloads.append(PaymentRequestDecline(paymentRequestID: "pr-1/ü"))
        payloads.append(SmokePing(sequence: 3, message: "ping \"quoted\" \\ /"))
        payloads.append(
            Contact(
                id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", nickname: "Bo", aliases: ["b"],
                relation: "friend", handles: ["+86 1"], interactionCount: 4,
                lastInteraction: Date(timeIntervalSince1970: 1_795_000_000.25)))
        return payloads
    }

    /// The typed payload of a stage's event.
    static func payload(of event: EventEnvelope) throws -> any Codable {
        switch event.type {
        case IntentRequested.type: try event.decodeData(as: IntentRequested.self)
        case IntentResolutionReport.promptType, IntentResolutionReport.resolvedType:
            try event.decodeData(as: IntentResolutionReport.self)
        case IntentConfirmation.type: try event.decodeData(as: IntentConfirmation.self)
        case ConfirmationRequest.type: try event.decodeData(as: ConfirmationRequest.self)
        case ConfirmationAnswer.type: try event.decodeData(as: ConfirmationAnswer.self)
        case IntentResponse.type: try event.decodeData(as: IntentResponse.self)
        case PaymentRequestDecline.type: try event.decodeData(as: PaymentRequestDecline.self)
        case LedgerEvent.type: try event.decodeData(as: LedgerEvent.self)
        case MessageEvent.type: try event.decodeData(as: MessageEvent.self)
        default: throw EventDecodingError(.unknownType, "no payload type for \(event.type)")
        }
    }

    func reference(_ value: some Encodable) throws -> [UInt8] {
        CanonicalJSONWriter.encode(try JSONValueEncoder.encode(value))
    }

    func direct(_ value: some Encodable) throws -> [UInt8] { try CanonicalEncoder.encode(value, style: .payload) }

    func foundation(_ value: some Encodable) throws -> [UInt8] {
        try CanonicalEncoder.encode(value, style: .foundation)
    }

    @Test("every payload type encodes to the bytes of its JSON value written canonically")
    func payloadsMatchTheWriter() throws {
        let payloads = try Self.everyPayload()
        var types: Set<String> = []
        for payload in payloads {
            #expect(try direct(payload) == reference(payload), "\(payload)")
            types.insert("\(type(of: payload))")
        }
        #expect(types.count >= 11, "\(types.sorted())")
    }

    @Test("CanonicalJSON.encode gives Foundation's bytes for payloads, binding messages and token messages")
    func canonicalJSONMatchesFoundation() throws {
        var values: [any Encodable] = try Self.everyPayload()
        values.append([
            "intent-pipeline/binding/v2", "sendPayment", "i-1", "user/ü", "", "+86 1", "10.50", "CNY", "", "x",
        ])
        values.append(["intent-pipeline/app/v2", "user", String(1_795_000_000)])
        values.append(["a": 1.5, "b": 1e16, "c": -0.0, "d": 1e-7])
        values.append([UInt64.max])
        for value in values {
            #expect(CanonicalJSON.encode(value) == CanonicalJSON.foundationEncode(value), "\(value)")
        }
    }

    @Test("numbers, Foundation's own types, nesting and odd shapes encode as before, in both styles")
    func oddValuesMatch() throws {
        let odd: [String: [Double]] = ["a": [1, 1.5, -0.0, 1e16, 1e300, 0.1, 9.3e18, -1e-300, 123_456_789.5]]
        let unsigned: [UInt64] = [0, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max]
        let unsignedWords: [UInt] = [0, UInt.max]
        let floats: [Float] = [0.1, 1, 3.4e38, -2.5e-30]
        let special = ["d": Data([1, 2, 255]), "e": Data()]
        let urls = [URL(string: "https://example.com/a b?x=1")!, URL(string: "file:///tmp/x")!]
        let decimals = [
            Decimal(string: "0.1000000000000000055511151231257827")!, Decimal(1), Decimal(string: "-3.25")!,
        ]
        let dates = [Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 0.25)]
        let nested: [[String: [Int?]]] = [["b": [1, nil, 3], "a": []], [:]]
        let strings = ["", "a/b", "\u{0}\u{1F}\"\\\n\t", "孙波 😀", "e\u{301}"]
        let integers: [Int64] = [Int64.min, -1, 0, Int64.max]
        let small: (Int8, Int16, Int32, UInt8, UInt16, UInt32) = (-8, -16, -32, 8, 16, 32)
        let tuple = [Int(small.0), Int(small.1), Int(small.2), Int(small.3), Int(small.4), Int(small.5)]
        try expectBothStyles(odd)
        try expectBothStyles(unsigned)
        try expectBothStyles(unsignedWords)
        try expectBothStyles(floats)
        try expectBothStyles(special)
        try expectBothStyles(urls)
        try expectBothStyles(decimals)
        try expectBothStyles(dates)
        try expectBothStyles(nested)
        try expectBothStyles(strings)
        try expectBothStyles(integers)
        try expectBothStyles(tuple)
        try expectBothStyles(AllScalars())
        try expectBothStyles(Dictionary(uniqueKeysWithValues: (0..<40).map { ("k\($0 * 7 % 40)", $0) }))
        #expect(try direct(ManyKeys()) == reference(ManyKeys()))
        // Foundation's encoder refuses these shapes; the payload style matches the tree encoder.
        #expect(try direct(Hand.written) == reference(Hand.written))
        #expect(try direct(Hand.empty) == reference(Hand.empty))
        try expectBothStyles(3.5)
        try expectBothStyles("top level")
        try expectBothStyles(Optional<Int>.none)
        #expect(throws: EncodingError.self) { try direct([Double.nan]) }
        #expect(throws: EncodingError.self) { try foundation(["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try direct(["x": [Float.infinity]]) }
    }

    @Test("JSON values encode as the writer writes them")
    func jsonValuesMatch() throws {
        var generator = CanonicalJSONEquivalenceTests.Generator(state: 42)
        for _ in 0..<2_000 {
            let value = generator.value()
            let expected = CanonicalJSONWriter.encode(value)
            #expect(try direct(value) == expected, "\(value)")
            #expect(try foundation(value) == expected, "\(value)")
        }
    }

    /// The payload style against the writer, and the Foundation style against Foundation.
    func expectBothStyles<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try direct(value) == reference(value), "\(value)", sourceLocation: sourceLocation)
        #expect(
            try foundation(value) == CanonicalJSON.foundationEncode(value), "\(value)", sourceLocation: sourceLocation)
    }

    /// Every scalar the containers take, through every container kind.
    struct AllScalars: Encodable {
        enum CodingKeys: String, CodingKey {
            case b, s, d, f, i, i8, i16, i32, i64, u, u8, u16, u32, u64, n, list, single
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(true, forKey: .b)
            try container.encode("s/\u{7}", forKey: .s)
            try container.encode(2.0, forKey: .d)
            try container.encode(Float(0.3), forKey: .f)
            try container.encode(-1, forKey: .i)
            try container.encode(Int8(-2), forKey: .i8)
            try container.encode(Int16(-3), forKey: .i16)
            try container.encode(Int32(-4), forKey: .i32)
            try container.encode(Int64(-5), forKey: .i64)
            try container.encode(UInt.max, forKey: .u)
            try container.encode(UInt8(6), forKey: .u8)
            try container.encode(UInt16(7), forKey: .u16)
            try container.encode(UInt32(8), forKey: .u32)
            try container.encode(UInt64.max, forKey: .u64)
            try container.encodeNil(forKey: .n)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(false)
            try list.encode("x")
            try list.encode(2.5)
            try list.encode(Float(2))
            try list.encode(1)
            try list.encode(Int8(1))
            try list.encode(Int16(1))
            try list.encode(Int32(1))
            try list.encode(Int64(1))
            try list.encode(UInt(1))
            try list.encode(UInt8(1))
            try list.encode(UInt16(1))
            try list.encode(UInt32(1))
            try list.encode(UInt64.max)
            try list.encodeNil()
            try list.encode(Data([9]))
            try list.encode(Single(value: 4.25))
            try container.encode(Single(value: 1e20), forKey: .single)
        }
    }

    struct Single: Encodable {
        var value: Double
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// More members than the small-object sort handles, some written twice.
    struct ManyKeys: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            for index in 0..<30 { try container.encode(index, forKey: AnyKey("key\(index * 11 % 30)")) }
            for index in [3, 17, 3] { try container.encode("again \(index)", forKey: AnyKey("key\(index)")) }
            try container.encode(true, forKey: AnyKey("e\u{301}"))
            try container.encode(false, forKey: AnyKey("é"))
        }
    }

    /// Hand-written conformances: keys written twice, containers opened twice on
    /// one encoder, nested containers filled in after later members, super encoders.
    enum Hand: Encodable {
        case written
        case empty

        enum Key: String, CodingKey {
            case zeta, alpha, beta, gamma, 十
            case a = "A"
        }

        func encode(to encoder: any Encoder) throws {
            guard case .written = self else { return }
            var first = encoder.container(keyedBy: Key.self)
            try first.encode(1, forKey: .zeta)
            var late = first.nestedContainer(keyedBy: Key.self, forKey: .gamma)
            var second = encoder.container(keyedBy: Key.self)
            try second.encode("twice", forKey: .zeta)
            try second.encode([3, 2], forKey: .alpha)
            try late.encode("filled in later", forKey: .beta)
            var list = second.nestedUnkeyedContainer(forKey: .十)
            var inner = list.nestedContainer(keyedBy: Key.self)
            try list.encode("after")
            try inner.encode(true, forKey: .a)
            let nestedList = list.nestedUnkeyedContainer()
            _ = nestedList
            _ = list.superEncoder()
            let superEncoder = second.superEncoder(forKey: .beta)
            var single = superEncoder.singleValueContainer()
            try single.encode("super")
            _ = second.superEncoder()
        }
    }
}
