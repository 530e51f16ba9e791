import Foundation
import Intents
import Messaging
import Testing

@testable import IntentEvents

/// Every ``DirectlyReadPayload`` against strict `Codable` decoding, the path it stands in for:
/// for each payload, intact and with every single-field damage (PayloadCodingEquivalenceTests'
/// generator), read from parsed JSON and from its canonical bytes, the direct reader either
/// refuses or gives exactly what `Codable` gives; it never accepts what `Codable` refuses. And
/// it accepts every intact payload, so the stages do take the fast path.
@Suite("Direct reading equivalence")
struct DirectReadingEquivalenceTests {
    static let binding = ConfirmationBinding(digest: "9f2c", expiresAt: Timestamp(milliseconds: 1_795_000_123_456))

    static var intents: [Intent] { PayloadCodingEquivalenceTests.payloads.map(\.intent) }

    static let arguments: [String: MessageArgument] = [
        "amount": .amount(CurrencyAmount(amount: DecimalAmount("12.50")!, currency: "CNY")),
        "recipients": .names(["孙波", "Юлия"]), "count": .number(3), "content": .text("hi"),
        "options": .choices(["a", "b"]),
    ]

    static var confirmations: [IntentConfirmation] {
        intents.enumerated().map { index, intent in
            IntentConfirmation(
                turn: index + 1, intent: intent, code: index % 2 == 0 ? .ready : .failure,
                reason: index % 3 == 0 ? "why" : nil, proposedResponse: "ok?",
                localized: LocalizedMessage(.sendMessageConfirm, index % 2 == 0 ? arguments : [:]),
                binding: index % 2 == 0 ? binding : nil, ledgerVersion: index % 2 == 0 ? index : nil)
        }
    }

    static var requests: [ConfirmationRequest] {
        intents.map { intent in
            ConfirmationRequest(
                intent: intent, counterpartyContactID: "c1", counterpartyDisplayName: "孙波",
                counterpartyAccount: "acct", amount: CurrencyAmount(amount: DecimalAmount("3")!, currency: "EUR"),
                proposedResponse: "pay?", localized: LocalizedMessage(.sendMessageConfirm, arguments),
                binding: binding)
        }
    }

    static let answers = [
        ConfirmationAnswer(decision: .confirmed, binding: binding),
        ConfirmationAnswer(decision: .declined, binding: binding),
    ]

    /// Responses with every optional member present or absent, of several kinds and codes.
    static var responses: [IntentResponse] {
        Intent.Kind.allCases.enumerated().flatMap { index, kind in
            [true, false].map { full in
                IntentResponse(
                    kind: kind, code: full ? .failureInsufficientFunds : .success, reason: full ? "why" : nil,
                    message: "Отправлено 孙波", localized: full ? LocalizedMessage(.sendMessageConfirm, arguments) : nil,
                    transferID: full ? "t\(index)" : nil, paymentRequestID: full ? "r\(index)" : nil,
                    messageIDs: full ? ["m1", "m2"] : nil, ledgerVersion: full ? index : nil)
            }
        }
    }

    /// Message events of every kind, with every optional member present or absent.
    static var messageEvents: [MessageEvent] {
        [MessageEvent.Kind.queued, .delivered, .attributeSet].flatMap { kind in
            [true, false].map { full in
                MessageEvent(
                    id: "m1", kind: kind, userID: "u", intentID: "i", messageIDs: full ? ["m1", "m2"] : [],
                    conversation: full ? "孙波" : nil,
                    recipients: full ? [Person(spoken: "sun", handle: "h", contactID: "c", displayName: "孙波")] : nil,
                    content: full ? "hi" : nil, serviceName: full ? "s" : nil,
                    at: Timestamp(milliseconds: 1_795_000_000_250),
                    dueAt: full ? Timestamp(milliseconds: 1_795_000_060_000) : nil,
                    attribute: full ? .flagged : nil, locale: full ? "ru-RU" : nil)
            }
        }
    }

    /// The direct reading of `value` (from the tree and from its canonical bytes) against strict
    /// `Codable` decoding; returns whether the direct reader accepted it.
    @discardableResult
    func compare<T: DirectlyReadPayload & Equatable>(_ type: T.Type, _ value: JSONValue) -> Bool {
        let strict = try? EventEnvelope.decodeDataByReencoding(value, as: T.self)
        let fromValue = JSONValueReader.read(value) { (reader) throws(JSONRefusal) in try T.read(from: &reader) }
        let fromBytes = JSONBytesReader.read(CanonicalJSON.encode(value)) { (reader) throws(JSONRefusal) in
            try T.read(from: &reader)
        }
        for direct in [fromValue, fromBytes] {
            if let direct { #expect(direct == strict, "\(T.self): \(value)") }
        }
        return fromValue != nil
    }

    func check<T: DirectlyReadPayload & Equatable>(_ payloads: [T], variants: Int = 3_000) throws -> Int {
        var compared = 0
        for payload in payloads {
            let value = try JSONValueEncoder.encode(payload)
            #expect(compare(T.self, value), "the direct reader refused an intact \(T.self): \(value)")
            for variant in PayloadCodingEquivalenceTests.damaged(value).prefix(variants) {
                compare(T.self, variant)
                compared += 1
            }
        }
        return compared
    }

    @Test(
        "requests, resolutions, confirmations, confirmation requests, answers, message events and responses read as Codable reads them"
    )
    func everyPayload() throws {
        #expect(try check(PayloadCodingEquivalenceTests.payloads) > 500)
        #expect(try check(PayloadCodingEquivalenceTests.reports, variants: 1_500) > 500)
        #expect(try check(Self.confirmations, variants: 1_500) > 500)
        #expect(try check(Self.requests, variants: 1_000) > 500)
        #expect(try check(Self.answers) > 20)
        #expect(try check(Self.messageEvents, variants: 1_500) > 200)
        #expect(try check(Self.responses, variants: 1_000) > 500)
    }

    @Test("decodeData takes the direct reader and gives what the Codable path gives")
    func decodeDataUsesIt() throws {
        for confirmation in Self.confirmations {
            let envelope = EventEnvelope(
                id: "e1", source: "/workers/confirm", type: IntentConfirmation.type,
                time: Date(timeIntervalSince1970: 0),
                userID: "u", conversationID: "c", intentID: "i", payload: confirmation)
            let received = try EventEnvelope.decode(envelope.encoded())
            #expect(try received.decodeData(as: IntentConfirmation.self) == confirmation)
            #expect(received.readDirectly(IntentConfirmation.self) == confirmation)
        }
        // Refused by both: the error still names the field (from the Codable path).
        let bad = EventEnvelope(
            id: "e2", source: "/voice/x", type: IntentRequested.type, time: Date(timeIntervalSince1970: 0),
            userID: "u", conversationID: "c",
            data: .object(["turn": .integer(0), "intent": .object(["kind": .string("sendMessage")])]))
        #expect(throws: EventDecodingError.self) { try bad.decodeData(as: IntentRequested.self) }
    }
}
