import Foundation
public import IntentEvents
public import Kafka
public import Logging

/// Reads whole topics as they are now, outside any consumer group: what an
/// audit replays. Stops at each partition's end (verified by reading).
public enum TopicReader {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every record's event, in partition order; records that are not events are skipped and counted.
    public static func events(
        of topic: String, configuration: KafkaConfiguration, logger: Logger, timeout: Duration = .seconds(120)
    ) async throws -> (events: [EventEnvelope], unreadable: Int) {
        var events: [EventEnvelope] = []
        var unreadable = 0
        try await forEachRecord(of: topic, configuration: configuration, logger: logger, timeout: timeout) { message in
            if let event = try? EventEnvelope.decode(message.value ?? []) {
                events.append(event)
            } else {
                unreadable += 1
            }
        }
        return (events, unreadable)
    }

    /// Hands `body` every record the topic holds now, in partition order, without
    /// keeping them: a long topic costs only what `body` keeps.
    public static func forEachRecord(
        of topic: String, configuration: KafkaConfiguration, logger: Logger, timeout: Duration = .seconds(120),
        _ body: (KafkaConsumerMessage) throws -> Void
    ) async throws {
        let marks = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
            try await $0.bounds(of: topic)
        }
        let partitions = Array(marks.keys)
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(client: configuration, groupID: "reader-\(UUID().uuidString)"),
            logger: logger)
        var remaining = Dictionary(uniqueKeysWithValues: partitions.map { ($0, marks[$0]?.high ?? 0) })
            .filter { $0.value > (marks[$0.key]?.low ?? 0) }
        do {
            try consumer.assign(
                partitions.map {
                    KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
                })
            let deadline = ContinuousClock.now + timeout
            while !remaining.isEmpty && ContinuousClock.now < deadline {
                for message in try await consumer.poll(maxMessages: 5000, timeout: .milliseconds(500)) {
                    try body(message)
                    if let end = remaining[message.topicPartition], message.offset + 1 >= end {
                        remaining[message.topicPartition] = nil
                    }
                }
            }
            await consumer.close()
        } catch {
            await consumer.close()
            throw error
        }
        guard remaining.isEmpty else {
            throw Failure(description: "could not read all of \(topic) within \(timeout)")
        }
    }
}
