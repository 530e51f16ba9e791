import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Testing

@Suite("Intent schemas and the Swift intent types agree")
struct IntentSchemaTests {
    static let time = Date(timeIntervalSince1970: 1_795_000_000)

    static func request(_ intent: Intent, turn: Int = 1, intentID: String = "i1") -> EventEnvelope {
        EventEnvelope(
            id: EventID.derived("schema-test", intentID), source: "/voice/test", type: IntentRequested.type,
            time: time, dataSchema: IntentRequested.dataSchema, userID: "u1", conversationID: "c1",
            intentID: intentID, payload: IntentRequested(turn: turn, intent: intent))
    }

    static let everyIntent: [Intent] = [
        .sendMessage(
            SendMessageIntent(
                recipients: [Person(spoken: "小明"), Person(handle: "+86 138 0000 0001")], content: "晚上好",
                groupName: "家", serviceName: "sms")),
        .searchForMessages(
            SearchForMessagesIntent(
                senders: [Person(spoken: "Дима")], recipients: [Person(spoken: "Brandon", contactID: "b1")],
                dateRange: DateRange(start: time.addingTimeInterval(-86_400), end: time), keywords: ["ужин"],
                attributes: [.unread, .flagged])),
        .setMessageAttribute(SetMessageAttributeIntent(messageIDs: ["m1", "m2"], attribute: .read)),
        .sendPayment(
            SendPaymentIntent(
                payee: Person(spoken: "孙波"),
                currencyAmount: CurrencyAmount(amount: DecimalAmount("100.00")!, currency: "CNY"), note: "晚饭",
                paymentRequestID: "pr-1")),
        .requestPayment(
            RequestPaymentIntent(
                payer: Person(spoken: "Юлия Щукина"),
                currencyAmount: CurrencyAmount(amount: DecimalAmount("500")!, currency: "RUB"))),
        .sendPayment(SendPaymentIntent()),
    ]

    @Test("requests, prompts, resolved intents, contact and settings records the code writes validate against schemas/")
    func encodedEventsValidate() async throws {
        var events = Self.everyIntent.enumerated().map { Self.request($1, intentID: "i\($0)") }
        let contacts = [
            Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", interactionCount: 3),
            Contact(id: "b1", displayName: "Brandon Lee", lastInteraction: Self.time),
            Contact(id: "b2", displayName: "Brandon Smith", relation: "brother", handles: ["b@example.com"]),
        ]
        // Versioned (as publishers write them now) and unversioned (as older writers did).
        events += contacts.enumerated().map {
            ContactRecord.upsertEvent(
                userID: "u1", contact: $1, version: $0 == 0 ? nil : 1_795_000_000_000, source: "/test",
                time: Self.time)
        }
        events += [UserSettings(locale: "zh-Hans-CN"), UserSettings()].enumerated().map {
            UserSettingsRecord.event(
                userID: "u1", settings: $1, version: $0 == 0 ? 7 : nil, source: "/settings/test", time: Self.time)
        }
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
        let book = ContactBook(contacts: contacts)
        var types: Set<String> = []
        let intents = Self.everyIntent + [.sendMessage(SendMessageIntent(recipients: [Person(spoken: "Brandon")]))]
        for (index, intent) in intents.enumerated() {
            let request = Self.request(intent, intentID: "i\(index)")
            switch stage.process(key: "u1", value: request.encoded(), now: Self.time, contacts: { _ in book }) {
            case .prompt(let event), .resolved(let event):
                events.append(event)
                types.insert(event.type)
            case .ignored(let reason): Issue.record("ignored: \(reason)")
            case .rejected(let error), .refused(let error, _): Issue.record("rejected: \(error)")
            }
        }
        #expect(types == [IntentResolutionReport.promptType, IntentResolutionReport.resolvedType])
        let check = try await SchemaCheck.run(events: events)
        let eventLines = check.lines.filter { $0.kind == "event" }
        #expect(eventLines.count == events.count)
        #expect(eventLines.allSatisfy { $0.ok == true }, "\(eventLines.compactMap(\.errors).filter { !$0.isEmpty })")
        #expect(check.status == 0)
    }

    @Test("what the Swift decoder refuses, the schemas refuse too")
    func bothRefuse() async throws {
        let base = Self.request(Self.everyIntent[3])
        let variants: [(String, JSONValue)] = [
            (
                "amount as a number",
                .object([
                    "turn": .integer(1),
                    "intent": .object([
                        "kind": .string("sendPayment"),
                        "currencyAmount": .object(["amount": .number(100.5), "currency": .string("CNY")]),
                    ]),
                ])
            ),
            (
                "lower-case currency",
                .object([
                    "turn": .integer(1),
                    "intent": .object([
                        "kind": .string("sendPayment"),
                        "currencyAmount": .object(["amount": .string("1"), "currency": .string("cny")]),
                    ]),
                ])
            ),
            ("turn 0", .object(["turn": .integer(0), "intent": .object(["kind": .string("sendPayment")])])),
            ("unknown kind", .object(["turn": .integer(1), "intent": .object(["kind": .string("orderPizza")])])),
            (
                "misspelled field",
                .object([
                    "turn": .integer(1),
                    "intent": .object(["kind": .string("sendPayment"), "payee": .object(["contactId": .string("x")])]),
                ])
            ),
            (
                "unknown attribute",
                .object([
                    "turn": .integer(1),
                    "intent": .object([
                        "kind": .string("setMessageAttribute"), "messageIDs": .array([.string("m")]),
                        "attribute": .string("starred"),
                    ]),
                ])
            ),
        ]
        var events: [EventEnvelope] = []
        for (name, data) in variants {
            var event = base
            event.data = data
            #expect(throws: EventDecodingError.self, "\(name)") { try event.decodeData(as: IntentRequested.self) }
            events.append(event)
        }
        let check = try await SchemaCheck.run(events: events)
        let eventLines = check.lines.filter { $0.kind == "event" }
        #expect(eventLines.count == variants.count)
        for (line, variant) in zip(eventLines, variants) {
            #expect(line.ok == false, "the schema accepted: \(variant.0)")
        }
    }
}
