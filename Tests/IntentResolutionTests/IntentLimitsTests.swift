import Foundation
import IntentEvents
import IntentResolution
import Intents
import Testing

/// A voice service's request is held to the sizes its schema states (SECURITY.md, attack 47):
/// the resolver's work grows with a spoken name's words squared, and prompts with the people
/// they list, so nothing past those sizes reaches them.
@Suite("Requests within the schema's sizes")
struct IntentLimitsTests {
    /// One bounded field: an intent with it at `limit` and one past it (in characters or items).
    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        /// Where the schema states the bound (`$defs/...` in schemas/intent/common.v1.json).
        var schemaPath: [String]
        var bound: String
        var intent: @Sendable (Int) -> Intent
        var testDescription: String { field }
    }

    static let cases: [Case] = [
        Case(
            field: "$.data.intent.senders[0].spoken", schemaPath: ["person", "properties", "spoken"],
            bound: "maxLength"
        ) {
            // Han characters: three bytes each, one character each, as the schema counts.
            .searchForMessages(SearchForMessagesIntent(senders: [Person(spoken: String(repeating: "明", count: $0))]))
        },
        Case(field: "$.data.intent.recipients", schemaPath: ["people"], bound: "maxItems") {
            .sendMessage(SendMessageIntent(recipients: Array(repeating: Person(spoken: "小明"), count: $0)))
        },
        Case(
            field: "$.data.intent.recipients[0].handle", schemaPath: ["person", "properties", "handle"],
            bound: "maxLength"
        ) {
            .sendMessage(SendMessageIntent(recipients: [Person(handle: String(repeating: "9", count: $0))]))
        },
        Case(
            field: "$.data.intent.content", schemaPath: ["sendMessage", "properties", "content"], bound: "maxLength"
        ) {
            .sendMessage(
                SendMessageIntent(recipients: [Person(spoken: "小明")], content: String(repeating: "x", count: $0)))
        },
        Case(
            field: "$.data.intent.keywords", schemaPath: ["searchForMessages", "properties", "keywords"],
            bound: "maxItems"
        ) {
            .searchForMessages(SearchForMessagesIntent(keywords: Array(repeating: "lunch", count: $0)))
        },
        Case(
            field: "$.data.intent.messageIDs", schemaPath: ["setMessageAttribute", "properties", "messageIDs"],
            bound: "maxItems"
        ) {
            .setMessageAttribute(SetMessageAttributeIntent(messageIDs: (0..<$0).map { "m\($0)" }, attribute: .read))
        },
        Case(
            field: "$.data.intent.groupName", schemaPath: ["sendMessage", "properties", "groupName"],
            bound: "maxLength"
        ) {
            .sendMessage(
                SendMessageIntent(recipients: [Person(spoken: "小明")], groupName: String(repeating: "g", count: $0)))
        },
        Case(
            field: "$.data.intent.serviceName", schemaPath: ["sendMessage", "properties", "serviceName"],
            bound: "maxLength"
        ) {
            .sendMessage(
                SendMessageIntent(recipients: [Person(spoken: "小明")], serviceName: String(repeating: "s", count: $0)))
        },
        Case(
            field: "$.data.intent.keywords[0]", schemaPath: ["searchForMessages", "properties", "keywords", "items"],
            bound: "maxLength"
        ) {
            .searchForMessages(SearchForMessagesIntent(keywords: [String(repeating: "k", count: $0)]))
        },
        Case(
            field: "$.data.intent.attributes", schemaPath: ["searchForMessages", "properties", "attributes"],
            bound: "maxItems"
        ) {
            .searchForMessages(SearchForMessagesIntent(attributes: Array(repeating: .read, count: $0)))
        },
        // A message id is the schema's non-empty string.
        Case(field: "$.data.intent.messageIDs[0]", schemaPath: ["nonEmptyString"], bound: "maxLength") {
            .setMessageAttribute(
                SetMessageAttributeIntent(messageIDs: [String(repeating: "m", count: $0)], attribute: .read))
        },
        Case(
            field: "$.data.intent.paymentRequestID", schemaPath: ["sendPayment", "properties", "paymentRequestID"],
            bound: "maxLength"
        ) {
            .sendPayment(
                SendPaymentIntent(
                    payee: Person(spoken: "Brandon"), currencyAmount: amount("20", "CNY"),
                    paymentRequestID: String(repeating: "r", count: $0)))
        },
        Case(field: "$.data.intent.note", schemaPath: ["sendPayment", "properties", "note"], bound: "maxLength") {
            .sendPayment(
                SendPaymentIntent(
                    payee: Person(spoken: "Brandon"), currencyAmount: amount("20", "CNY"),
                    note: String(repeating: "n", count: $0)))
        },
    ]

    @Test("one past the schema's bound is refused, naming the field; at the bound it is not", arguments: cases)
    func bound(_ bounded: Case) throws {
        let limit = try Self.schemaBound(bounded.schemaPath, bounded.bound)
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        let past = stage.process(
            key: "u1", value: requestEvent(turn: 1, intent: bounded.intent(limit + 1)).encoded(), now: fixedNow
        ) { _ in sampleBook }
        switch past {
        case .rejected(let error), .refused(let error, _):
            #expect(error.reason == .schemaInvalid)
            #expect(error.field == bounded.field)
        default:
            Issue.record("\(bounded.field) at \(limit + 1) was not refused: \(past)")
        }
        var fresh = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        let at = fresh.process(
            key: "u1", value: requestEvent(turn: 1, intent: bounded.intent(limit)).encoded(), now: fixedNow
        ) { _ in sampleBook }
        if case .rejected(let error) = at { Issue.record("\(bounded.field) at \(limit) was refused: \(error)") }
        if case .refused(let error, _) = at { Issue.record("\(bounded.field) at \(limit) was refused: \(error)") }
    }

    /// The bound as the schema file states it, so the Swift limits cannot drift from it.
    static func schemaBound(_ path: [String], _ bound: String) throws -> Int {
        try schemaFileBound("intent/common.v1.json", under: "$defs", path, bound)
    }
}
