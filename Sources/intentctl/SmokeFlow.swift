import CommandLineSupport
import Foundation
import IntentEvents
import Kafka
import Logging
import ServiceLifecycle
import Synchronization

/// Publishes smoke events for a few users and reads them back through a
/// consumer group, checking what a pipeline relies on: nothing lost, nothing
/// twice, per-user order, strict decoding.
final class SmokeFlow: Service, Sendable {
    struct Outcome: Sendable {
        var succeeded = false
        var failure: String?
    }

    let bootstrapServers: String
    let eventsPerUser: Int
    let logger: Logger
    private let result = Mutex(Outcome())
    static let users = ["alice", "小明", "Юлия"]

    var outcome: Outcome { result.withLock { $0 } }

    init(bootstrapServers: String, eventsPerUser: Int, logger: Logger) {
        self.bootstrapServers = bootstrapServers
        self.eventsPerUser = eventsPerUser
        self.logger = logger
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await self.play() }
            result.withLock { $0.succeeded = true }
        } catch {
            result.withLock { $0.failure = "\(error)" }
            throw error
        }
    }

    private func play() async throws {
        let client = KafkaConfiguration(bootstrapServers: [bootstrapServers], clientID: "intent-demo")
        let topic = "demo.smoke.\(UUID().uuidString.prefix(8).lowercased())"
        try await KafkaAdminClient.with(configuration: client, logger: logger) {
            try await $0.createTopic(KafkaTopicSpecification(name: topic, partitions: 3))
        }
        output("▶ created topic \(topic) (3 partitions)")

        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        var messages: [KafkaProducerMessage] = []
        for user in Self.users {
            for sequence in 0..<eventsPerUser {
                let envelope = EventEnvelope(
                    id: EventID.derived("smoke", topic, user, String(sequence)), source: "/intentctl/demo",
                    type: SmokePing.type, time: Date(), subject: "ping-\(sequence)", dataSchema: SmokePing.dataSchema,
                    userID: user, conversationID: "demo-\(user)",
                    data: .object(["sequence": .integer(Int64(sequence)), "message": .string("hello from \(user)")]))
                messages.append(KafkaProducerMessage(topic: topic, event: envelope))
            }
        }
        let reports = try await producer.sendAll(messages)
        output("▶ published \(reports.count) events for \(Self.users.joined(separator: ", "))")
        await producer.shutdown()

        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: client, groupID: "\(topic)-readers", sessionTimeout: .seconds(6)),
            logger: logger)
        let seen: [String: [Int]]
        do {
            seen = try await readBack(consumer, topic: topic, expected: messages.count)
            await consumer.close()
        } catch {
            await consumer.close()
            throw error
        }

        for user in Self.users where seen[user] != Array(0..<eventsPerUser) {
            throw CommandFailure(
                "user \(user): expected sequences 0..<\(eventsPerUser) in order, got \(seen[user] ?? [])")
        }
        try await KafkaAdminClient.with(configuration: client, logger: logger) { try await $0.deleteTopics([topic]) }
    }

    /// Reads `expected` events back, committing after each batch; returns each user's sequences in arrival order.
    private func readBack(_ consumer: KafkaConsumer, topic: String, expected: Int) async throws -> [String: [Int]] {
        try consumer.subscribe(topics: [topic])
        var seen: [String: [Int]] = [:]
        var received = 0
        for try await batch in consumer.batches() {
            for message in batch {
                let envelope = try EventEnvelope.decode(message.value ?? [])
                let ping = try envelope.decodeData(as: SmokePing.self)
                seen[envelope.userID, default: []].append(ping.sequence)
                output(
                    "  ← \(message.topicPartition)@\(message.offset) \(envelope.userID): #\(ping.sequence) \(ping.message)"
                )
            }
            received += batch.count
            try consumer.markProcessed(batch)
            try await consumer.commit()
            if received >= expected { break }
        }
        return seen
    }
}
