import Confirmation
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Messaging
import Payments
import Testing

@Suite("Confirm, payments and ledger events agree with their schemas")
struct PaymentSchemaTests {
    static let time = Date(timeIntervalSince1970: 1_795_000_000.123)

    @Test("every event the confirm and payments stages write validates against schemas/")
    func stagesWriteValidEvents() async throws {
        let events = try Self.stageEvents()
        let types = Set(events.map(\.type))
        #expect(
            types.isSuperset(of: [
                IntentConfirmation.type, IntentResponse.type, ConfirmationRequest.type, ConfirmationAnswer.type,
                LedgerEvent.type, MessageEvent.type,
            ]), "\(types)")
        let check = try await SchemaCheck.run(events: events)
        let eventLines = check.lines.filter { $0.kind == "event" }
        #expect(eventLines.count == events.count)
        #expect(eventLines.allSatisfy { $0.ok == true }, "\(eventLines.compactMap(\.errors).filter { !$0.isEmpty })")
        #expect(check.status == 0)
    }

    /// Every kind of event the confirm, payments and handle stages write, from a
    /// few payments, requests and messages (also the codec's equivalence tests' inputs).
    static func stageEvents() throws -> [EventEnvelope] {
        let authenticator = EventAuthenticator(keys: ["/voice/test": Array(repeating: 3, count: 32)])
        let key = BindingKey(Array(repeating: 9, count: 32))
        let stageKeys = EventAuthenticator.generate(for: PipelineSource.all)
        let payments = PaymentsStage(bindingKey: key, authenticator: authenticator, stages: stageKeys)
        var ledger = Ledger()
        var events: [EventEnvelope] = []
        let seeds = [
            LedgerEvent(
                id: "open-a", kind: .accountOpened, userID: "a", handles: ["a@example.com"], verified: true,
                accountVersion: 1),
            LedgerEvent(id: "open-b", kind: .accountOpened, userID: "b", handles: ["b@example.com"], accountVersion: 1),
            LedgerEvent.closing(userID: "c", version: 2),
            LedgerEvent.deposit(id: "dep", userID: "a", amount: Self.cny("100")),
        ]
        for seed in seeds {
            try ledger.apply(seed)
            events.append(seed.envelope(source: "/seed", time: Self.time))
        }
        let payee = Person(spoken: "B", handle: "b@example.com", contactID: "c-b", displayName: "B")
        let intents: [Intent] = [
            .sendPayment(SendPaymentIntent(payee: payee, currencyAmount: Self.cny("10"), note: "x")),
            .sendPayment(SendPaymentIntent(payee: payee, currencyAmount: Self.cny("1000"))),
            .requestPayment(RequestPaymentIntent(payer: payee, currencyAmount: Self.cny("5"))),
            .sendMessage(SendMessageIntent(recipients: [payee], content: "hi")),
        ]
        for (index, intent) in intents.enumerated() {
            let resolved = EventEnvelope(
                id: "r\(index)", source: "/workers/resolve", type: IntentResolutionReport.resolvedType, time: Self.time,
                dataSchema: IntentResolutionReport.resolvedDataSchema, userID: "a", conversationID: "c",
                intentID: "i\(index)", payload: IntentResolutionReport(turn: 1, intent: intent, parameters: []))
            let confirmed = ConfirmStage(bindingKey: key, authenticator: stageKeys).process(
                key: "a", value: resolved.encoded(), signature: stageKeys.signature(for: resolved), ledger: ledger)
            events += confirmed.events.map(\.event)
            for (destination, event) in confirmed.events where destination == .confirmations {
                let proposed = payments.process(
                    key: "a", value: event.encoded(), signature: stageKeys.signature(for: event), ledger: &ledger,
                    now: Self.time)
                events += proposed.events.map(\.event)
                guard let request = confirmed.events.first(where: { $0.event.type == ConfirmationRequest.type }) else {
                    continue
                }
                let binding = try request.event.decodeData(as: ConfirmationRequest.self).binding
                let answer = EventEnvelope(
                    id: "answer-\(index)", source: "/voice/test", type: ConfirmationAnswer.type, time: Self.time,
                    dataSchema: ConfirmationAnswer.dataSchema, userID: "a", conversationID: "c", intentID: "i\(index)",
                    payload: ConfirmationAnswer(decision: .confirmed, binding: binding))
                events.append(answer)
                let answered = payments.process(
                    key: "a", value: answer.encoded(), signature: authenticator.signature(for: answer), ledger: &ledger,
                    now: Self.time)
                events += answered.events.map(\.event)
            }
        }
        var history = MessageHistory()
        let handle = HandleStage(authenticator: stageKeys, slowServices: ["satellite": .seconds(1)])
        let messaging: [Intent] = [
            .sendMessage(SendMessageIntent(recipients: [payee], content: "hi", serviceName: "satellite")),
            .sendMessage(SendMessageIntent(recipients: [], content: "all", groupName: "家")),
        ]
        for (index, intent) in messaging.enumerated() {
            let confirmed = EventEnvelope(
                id: "m\(index)", source: "/workers/confirm", type: IntentConfirmation.type, time: Self.time,
                dataSchema: IntentConfirmation.dataSchema, userID: "a", conversationID: "c", intentID: "m\(index)",
                payload: IntentConfirmation(turn: 1, intent: intent, code: .ready, proposedResponse: "?"))
            events += handle.process(
                key: "a", value: confirmed.encoded(), signature: stageKeys.signature(for: confirmed), history: &history
            ).events.map(\.event)
        }
        let marked = EventEnvelope(
            id: "mark", source: "/workers/confirm", type: IntentConfirmation.type, time: Self.time,
            dataSchema: IntentConfirmation.dataSchema, userID: "a", conversationID: "c", intentID: "mark",
            payload: IntentConfirmation(
                turn: 1,
                intent: .setMessageAttribute(
                    SetMessageAttributeIntent(messageIDs: history.messages(of: "a").map(\.id), attribute: .flagged)),
                code: .ready, proposedResponse: "?"))
        events += handle.process(
            key: "a", value: marked.encoded(), signature: stageKeys.signature(for: marked), history: &history
        ).events.map(\.event)
        events += handle.tick(history: &history, now: Self.time.addingTimeInterval(5), owns: { _ in true }).events.map(
            \.event)
        let swept = payments.sweep(ledger: &ledger, now: Self.time.addingTimeInterval(1_000), owns: { _ in true })
        events += swept.events.map(\.event)
        return events
    }

    static func cny(_ text: String) -> CurrencyAmount { CurrencyAmount(amount: DecimalAmount(text)!, currency: "CNY") }
}
