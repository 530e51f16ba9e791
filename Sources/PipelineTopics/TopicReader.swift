public import Foundation
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
        try await forEachRecord(
            of: topic, between: nil, and: nil, configuration: configuration, logger: logger, timeout: timeout, body)
    }

    /// How many records the topics hold now, from each partition's low to its high watermark.
    public static func recordCount(
        of topics: [String], configuration: KafkaConfiguration, logger: Logger
    ) async throws -> Int {
        try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { lookup in
            var total: Int64 = 0
            for topic in topics {
                for bounds in try await lookup.bounds(of: topic).values { total += bounds.high - bounds.low }
            }
            return Int(total)
        }
    }

    /// Where a time falls in each partition of a topic: the first offset of a record at or
    /// after it (the broker's answer, or a scan where the broker's is wrong), and how it
    /// was found.
    public static func offsets(
        of topic: String, at time: Date, configuration: KafkaConfiguration, logger: Logger
    ) async throws -> [KafkaTopicPartition: KafkaTimestampOffset] {
        try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { lookup in
            Dictionary(
                uniqueKeysWithValues: try await lookup.offsets(topic: topic, at: time).map {
                    ($0.offset.topicPartition, $0)
                })
        }
    }

    /// The records from offsets `start` (nil: each partition's beginning) up to `end`
    /// (nil: each partition's end now), in partition order; with `only`, of those partitions only.
    /// Fails when `timeout` passes without a record (here and in the functions built on this).
    public static func forEachRecord(
        of topic: String, between start: [KafkaTopicPartition: Int64]?, and end: [KafkaTopicPartition: Int64]?,
        only: Set<Int32>? = nil, configuration: KafkaConfiguration, logger: Logger, timeout: Duration = .seconds(120),
        _ body: (KafkaConsumerMessage) throws -> Void
    ) async throws {
        let marks = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
            try await $0.bounds(of: topic)
        }
        let partitions = marks.keys.filter { only?.contains($0.partition) ?? true }
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(client: configuration, groupID: "reader-\(UUID().uuidString)"),
            logger: logger)
        func first(_ partition: KafkaTopicPartition) -> Int64 {
            max(start?[partition] ?? marks[partition]?.low ?? 0, marks[partition]?.low ?? 0)
        }
        var remaining = Dictionary(
            uniqueKeysWithValues: partitions.map { ($0, min(end?[$0] ?? .max, marks[$0]?.high ?? 0)) }
        ).filter { $0.value > first($0.key) }
        do {
            try consumer.assign(
                partitions.map {
                    // The offset itself, not "beginning": the consumer need not ask the broker
                    // where each partition starts before its first fetch.
                    KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: first($0))
                })
            // A read that goes on reading goes on: the timeout is for one without progress. A whole
            // topic within a fixed time was an audit's limit on the ledger's size, which only grows
            // (about 7 million records in 120 s), and a flood of small records an auditor's outage.
            var deadline = ContinuousClock.now + timeout
            while !remaining.isEmpty && ContinuousClock.now < deadline {
                var progressed = false
                for message in try await consumer.poll(maxMessages: 5000, timeout: .milliseconds(500)) {
                    guard let last = remaining[message.topicPartition], message.offset < last else { continue }
                    progressed = true
                    try body(message)
                    if message.offset + 1 >= last { remaining[message.topicPartition] = nil }
                }
                if progressed { deadline = ContinuousClock.now + timeout }
            }
            await consumer.close()
        } catch {
            await consumer.close()
            throw error
        }
        guard remaining.isEmpty else {
            throw Failure(description: "could not read all of \(topic): no record for \(timeout)")
        }
    }
}
