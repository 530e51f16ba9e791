import Foundation
public import IntentEvents
public import IntentResolution
public import Kafka
public import Logging
import Synchronization

/// Materializes the compacted contacts topic into a ``ContactDirectory``:
/// reads every partition from the beginning (a global table: each worker
/// instance holds every user's contacts, whatever request partitions it is
/// assigned), then follows new records. Nothing is stored locally, so a
/// restart or a move to another machine rebuilds the same state.
public final class ContactsFollower: Sendable {
    private let directory = Mutex(ContactDirectory())
    private let consumer: KafkaConsumer
    private let configuration: KafkaConfiguration
    private let topic: String
    /// Called with a record that is not a valid contact; the worker parks it.
    private let reject: @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    private let logger: Logger

    public init(
        configuration: KafkaConfiguration, topic: String, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) {
        self.configuration = configuration
        self.topic = topic
        self.logger = logger
        self.reject = reject
        // A group id librdkafka requires but never joins: partitions are assigned, not subscribed.
        consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: configuration, groupID: "contacts-follower-\(UUID().uuidString)"),
            logger: logger)
    }

    /// The user's contacts as of the last applied record.
    public func book(for userID: String) -> ContactBook {
        directory.withLock { $0.book(for: userID) }
    }

    public var counts: (users: Int, contacts: Int) {
        directory.withLock { ($0.userCount, $0.contactCount) }
    }

    /// Reads the topic up to its current end, so the worker never resolves
    /// against a half-loaded address book.
    public func catchUp() async throws {
        let started = ContinuousClock.now
        let lookup = try KafkaOffsetLookup(configuration: configuration, logger: logger)
        let partitions: [KafkaTopicPartition]
        let ends: [KafkaTopicPartition: KafkaWatermarks]
        do {
            partitions = try await lookup.partitions(of: topic)
            ends = try await lookup.watermarks(partitions)
            await lookup.close()
        } catch {
            await lookup.close()
            throw error
        }
        try consumer.assign(
            partitions.map {
                KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
            })
        var remaining = Set(partitions.filter { (ends[$0]?.high ?? 0) > (ends[$0]?.low ?? 0) })
        while !remaining.isEmpty {
            try Task.checkCancellation()
            for message in try await consumer.poll() {
                try await apply(message)
                if let end = ends[message.topicPartition], message.offset + 1 >= end.high {
                    remaining.remove(message.topicPartition)
                }
            }
        }
        let counts = self.counts
        logger.info(
            "contacts loaded",
            metadata: [
                "topic": "\(topic)", "users": "\(counts.users)", "contacts": "\(counts.contacts)",
                "elapsed": "\(ContinuousClock.now - started)",
            ])
    }

    /// Applies new records until cancelled.
    public func follow() async throws {
        while !Task.isCancelled {
            for message in try await consumer.poll(timeout: .milliseconds(250)) {
                try await apply(message)
            }
        }
    }

    public func close() async {
        await consumer.close()
    }

    private func apply(_ message: KafkaConsumerMessage) async throws {
        do throws(EventDecodingError) {
            let record = try ContactRecord.decode(key: message.key, value: message.value)
            directory.withLock { $0.apply(record) }
        } catch {
            logger.warning(
                "contact record rejected",
                metadata: ["offset": "\(message.topicPartition)@\(message.offset)", "error": "\(error)"])
            try await reject(message, error)
        }
    }
}
