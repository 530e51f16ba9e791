import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Kafka
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// A holder of the confirm stage's key redirects a payment: the user asked to pay Bob (the
/// resolve stage resolved Bob's account), and the proposal, and so the question the user
/// heard and the binding the user's answer echoes, name Mallory's account; the payments
/// stage holds and posts to Mallory, consistently with that proposal. The audit compared the
/// post only with the proposal and found it clean (SECURITY.md's known gaps, the audit's
/// reach); it now holds the proposal to the resolve stage's resolution, signed with another
/// key. Read from the broker as `intentctl audit --stage-keys` reads it.
@Suite("The audit holds a payment's proposal to its resolution", .heavyTimeLimit(minutes: 2))
struct ResolvedPaymentAuditTests {
    static let voice = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(0x35), count: 32)])

    @Test("a payment proposed, confirmed and paid to another account than the one resolved is a finding")
    func redirectedProposal() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-resolved")
            let now = Date()
            let amount = money("100", "CNY")
            let asked = Person(spoken: "Bob", handle: "bob@example.com", contactID: "c-bob", displayName: "Bob")
            var redirected = asked
            redirected.handle = "mallory@evil.example"
            func event(_ id: String, _ source: String, _ type: String, _ schema: String, _ payload: some Encodable)
                -> EventEnvelope
            {
                EventEnvelope(
                    id: id, source: source, type: type, time: now, dataSchema: schema, userID: "alice",
                    conversationID: "c", intentID: "i1", payload: payload)
            }
            func payment(_ payee: Person) -> Intent {
                .sendPayment(SendPaymentIntent(payee: payee, currencyAmount: amount))
            }
            let binding = ConfirmationBinding(
                digest: String(repeating: "ab", count: 32), expiresAt: Timestamp(now.addingTimeInterval(120)))
            let resolved = event(
                "resolved-i1", PipelineSource.resolve, IntentResolutionReport.resolvedType,
                IntentResolutionReport.resolvedDataSchema,
                IntentResolutionReport(turn: 1, intent: payment(asked), parameters: []))
            let proposal = event(
                "proposal-i1", PipelineSource.confirm, IntentConfirmation.type, IntentConfirmation.dataSchema,
                IntentConfirmation(
                    turn: 1, intent: payment(redirected), code: .ready, proposedResponse: "Pay Bob 100 CNY?",
                    binding: binding))
            let answer = event(
                "answer-i1", "/voice/test", ConfirmationAnswer.type, ConfirmationAnswer.dataSchema,
                ConfirmationAnswer(decision: .confirmed, binding: binding))
            let openings = [("alice", "+1 555 0100"), ("bob", "bob@example.com"), ("mallory", "mallory@evil.example")]
                .map {
                    LedgerEvent(
                        id: "open-\($0.0)", kind: .accountOpened, userID: $0.0, handles: [$0.1], accountVersion: 1)
                }
            let deposit = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: amount)
            let (hold, post, credit) = paidTransfer(
                "i1", from: "alice", to: "mallory", account: "mallory@evil.example", amount: amount)
            // Each stage's records chained as the stages chain them (a holder of a stage's key can).
            var tips: [String: String] = [:]
            func record(_ event: EventEnvelope, on topic: String) -> KafkaProducerMessage {
                let isStage = PipelineSource.isInternal(event.source)
                var message = KafkaProducerMessage(
                    topic: topic, event: event, signedWith: isStage ? testStageKeys : Self.voice)
                guard isStage, topics.chained[topic] != nil else { return message }
                let chain = "\(topic) \(event.source)"
                tips[chain] =
                    message.link(
                        after: tips[chain] ?? RecordChain.genesis, source: event.source,
                        role: String(topic.dropFirst(topics.prefix.count)), partition: 0, keys: testStageKeys)
                return message
            }
            var records = (openings + [deposit]).map {
                record($0.envelope(source: PipelineSource.ledgerOperator, time: now), on: topics.ledger)
            }
            records += [hold, post, credit].map {
                record($0.envelope(source: PipelineSource.payments, time: now), on: topics.ledger)
            }
            records += [
                record(resolved, on: topics.resolved), record(proposal, on: topics.confirmations),
                record(answer, on: topics.confirmations),
            ]
            try await SingleRecordTopics.send(records, broker)
            let report = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys)
            let found = report.findings.filter { $0.contains("resolve stage") }
            #expect(found.count == 1, "\(report.findings)")
            // Nothing else is wrong in it: against the proposal alone, the payment is clean.
            #expect(report.findings.count == 1, "\(report.findings)")
            #expect(
                found.first?.hasPrefix("transfer t-i1 was proposed to mallory@evil.example") == true
                    && found.first?.contains("bob@example.com") == true, "\(report.findings)")
            #expect(report.postedTransfers == 1)
            // The resolved topic is read as the others are: a record that is not an event, and
            // one dated in the future, are findings there too.
            var future = record(resolved, on: topics.resolved)
            future.timestamp = now.addingTimeInterval(86_400)
            try await SingleRecordTopics.send(
                [KafkaProducerMessage(topic: topics.resolved, key: "alice", value: Array("junk".utf8)), future],
                broker)
            let again = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys)
            #expect(again.findings.contains("1 records are not events"), "\(again.findings)")
            #expect(
                again.findings.contains {
                    $0.hasPrefix("1 records are dated after their topic's read began (the first: \(topics.resolved)")
                }, "\(again.findings)")
        }
    }
}
