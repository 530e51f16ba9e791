import BrokerTestSupport
import ContactResolution
import Foundation
public import IntentEvents
public import Intents
public import Kafka
public import LocalBroker
import Payments
import PipelineAudit
import PipelineTools
public import PipelineTopics
public import StageRuntime
import Testing

/// The seeded load the process-level tests put through the workers (crash,
/// SIGTERM, broker outage, a stalled member): twenty users with accounts,
/// deposits, each other as contacts and an enrollment with the load's voice
/// service; half payments (one in ten declined), half messages; and the audit's
/// checks of what the topics hold afterwards.
public enum LoadFixture {
    public static let intentCount = Int(ProcessInfo.processInfo.environment["INTENT_CRASH_TEST_INTENTS"] ?? "") ?? 2000
    public static let users = (0..<20).map { "user-\($0)" }
    public static let voiceKey = Array(repeating: UInt8(0x42), count: 32)
    public static let bindingKey = Array(repeating: UInt8(0x17), count: 32)
    public static let authenticator = EventAuthenticator(keys: ["/voice/load": voiceKey])
    /// Fixes the kill schedule, the crash point and the load: `INTENT_CRASH_TEST_SEED` replays a run.
    public static let seed =
        UInt64(ProcessInfo.processInfo.environment["INTENT_CRASH_TEST_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)

    /// Enough for every payment a user makes even if it received nothing
    /// (at most 500.25 CNY each, half the intents are payments), and at
    /// least 100,000 CNY: a refusal for want of money would not be a crash's doing.
    public static var deposit: Int { max(100_000, intentCount / (2 * users.count) * 501) }

    /// Accounts with ``deposit`` CNY each; every user has every other user as a contact, and is
    /// enrolled with the load's voice service (the workers refuse a payment of a user bound to none).
    public static func seed(_ topics: PipelineTopics, _ producer: KafkaProducer) async throws {
        var records: [KafkaProducerMessage] = []
        for user in users {
            records.append(.enrollment(user, topics: topics, partitions: 4))
            let money = CurrencyAmount(amount: DecimalAmount("\(deposit)")!, currency: "CNY")
            records += KafkaProducerMessage.accountOpening(
                user, handles: ["\(user)@example.com"], deposits: [money], topics: topics,
                signedWith: testStageKeys)
            for other in users where other != user {
                let contact = Contact(id: "c-\(other)", displayName: other, handles: ["\(other)@example.com"])
                records.append(
                    KafkaProducerMessage.contact(
                        contact, of: user, version: 1, topic: topics.contacts, partitions: 4, source: "/contacts/test",
                        signedWith: testContactsKeys))
            }
        }
        _ = try await producer.sendAll(records)
    }

    /// Half payments (one in ten to be declined), half messages: intent id → kind, and the signed records.
    /// Topics (4 partitions) under a unique prefix, a producer, and the seeded accounts and contacts.
    public static func prepare(_ broker: LocalBroker, name: String) async throws -> (PipelineTopics, KafkaProducer) {
        let topics = PipelineTopics(prefix: uniqueName(name) + ".")
        try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
            try await $0.createTopics(topics.specifications(partitions: 4))
        }
        let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
        try await seed(topics, producer)
        return (topics, producer)
    }

    /// Publishes the load over about 20 s (a twentieth of it each second, at least 100), so
    /// every kill or stop lands with work in flight, whatever the machine's speed.
    public static func pace(
        _ records: [KafkaProducerMessage], through producer: KafkaProducer, counting published: Counter
    )
        async throws
    {
        let perSecond = max(100, records.count / 20)
        for batch in stride(from: 0, to: records.count, by: perSecond) {
            _ = try await producer.sendAll(Array(records[batch..<min(batch + perSecond, records.count)]))
            published.set(min(batch + perSecond, records.count))
            try await Task.sleep(for: .seconds(1))  // pacing the load, not synchronization
        }
    }

    public static func makeIntents(_ topics: PipelineTopics, using random: inout SplitMix64) -> (
        [String: Intent.Kind], [KafkaProducerMessage]
    ) {
        var intents: [String: Intent.Kind] = [:]
        var records: [KafkaProducerMessage] = []
        for index in 0..<intentCount {
            let user = users[index % users.count]
            let other = users.filter { $0 != user }.randomElement(using: &random)!
            let person = Person(spoken: other, contactID: "c-\(other)")
            let intent: Intent =
                index.isMultiple(of: 2)
                ? .sendPayment(
                    SendPaymentIntent(
                        payee: person,
                        currencyAmount: CurrencyAmount(
                            amount: DecimalAmount("\(Int.random(in: 1...500, using: &random)).25")!, currency: "CNY")))
                : .sendMessage(SendMessageIntent(recipients: [person], content: "message \(index)"))
            let intentID = "load-\(index)"
            intents[intentID] = intent.kind
            let event = EventEnvelope(
                id: "request-\(intentID)", source: "/voice/load", type: IntentRequested.type, time: Date(),
                dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "load-\(user)",
                intentID: intentID,
                payload: IntentRequested(turn: 1, intent: intent))
            records.append(KafkaProducerMessage(topic: topics.requested, event: event, signedWith: authenticator))
        }
        return (intents, records)
    }

    /// Whether the responder declines this payment (deterministic, one in ten).
    public static func declines(_ intentID: String) -> Bool {
        (Int(intentID.split(separator: "-").last ?? "") ?? 0) % 20 == 10
    }

    // MARK: Checks

    public static func check(topics: PipelineTopics, broker: LocalBroker, intents: [String: Intent.Kind]) async throws {
        func read(_ topic: String) async throws -> [EventEnvelope] {
            try await TopicReader.events(of: topic, configuration: clientConfiguration(broker), logger: testLogger)
                .events
        }
        // Unreadable records are findings too; with the stages' keys, so are broken chains.
        let report = try await TopicAudit.run(
            topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys,
            bindingKey: BindingKey(bindingKey))
        // The audit's rules: one final response per intent, one hold and one post-or-void per
        // transfer, balances equal to their entries and never negative, money neither created nor
        // lost, every posted transfer confirmed by its payer with a matching binding, messages once.
        #expect(report.findings == [], "seed \(seed)")
        // A redo after a crash publishes the binding it published before: no answer mismatches.
        let mismatched = try await read(topics.ledger).compactMap { try? $0.decodeData(as: LedgerEvent.self) }
            .filter { $0.reason == "confirmationMismatch" }
        #expect(mismatched.isEmpty, "\(mismatched.count) payments voided as confirmationMismatch (seed \(seed))")
        #expect(report.intents == intents.count)
        #expect(report.pendingIntents == [])
        #expect(report.heldTransfers == 0, "holds left after every intent ended")
        // What this load knows beyond the rules: which payments were declined, and that every message went out.
        let expectedPosted = intents.filter { $0.value == .sendPayment && !declines($0.key) }.keys.sorted()
        #expect(report.postedIntents == expectedPosted)
        for (intentID, kind) in intents where kind == .sendMessage {
            #expect(report.deliveredMessages[intentID] == 1, "\(intentID)")
        }
    }
}
