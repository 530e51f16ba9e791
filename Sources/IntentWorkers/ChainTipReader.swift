import Foundation
import IntentEvents
import Kafka
import Logging

/// Finds where a source's chain ends on a partition: reads the partition
/// backwards from its end in growing windows (the last record of a chain is
/// usually among the last few hundred) until a record chained by that source
/// turns up, or the partition's start is reached (a new chain).
final class ChainTipReader: Sendable {
    private let configuration: KafkaConfiguration
    private let logger: Logger

    init(configuration: KafkaConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    func partitionCount(of topic: String) async throws -> Int {
        try await RetryPolicy.current.retrying("look up the partitions of \(topic)", logger: logger) {
            try await KafkaOffsetLookup.partitionCount(
                of: topic, configuration: self.configuration, logger: self.logger)
        }
    }

    /// The hash (link signature) of the last record `source` chained on `place`; nil when it has none.
    func lastLink(of source: String, in place: KafkaTopicPartition) async throws -> String? {
        try await RetryPolicy.current.retrying("find the chain's end on \(place)", logger: logger) {
            try await self.search(source, place)
        }
    }

    private func search(_ source: String, _ place: KafkaTopicPartition) async throws -> String? {
        let bounds = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
            try await $0.watermarks([place])[place]
        }
        guard let bounds, bounds.high > bounds.low else { return nil }
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(client: configuration, groupID: "chain-\(UUID().uuidString)"),
            logger: logger)
        do {
            var end = bounds.high
            var window: Int64 = 256
            while end > bounds.low {
                let start = max(bounds.low, end - window)
                if let found = try await lastLink(of: source, in: place, from: start, to: end, consumer) {
                    await consumer.close()
                    return found
                }
                end = start
                window *= 4
            }
            await consumer.close()
            return nil
        } catch {
            await consumer.close()
            throw error
        }
    }

    /// The last link of `source` among the records at offsets `start..<end`.
    private func lastLink(
        of source: String, in place: KafkaTopicPartition, from start: Int64, to end: Int64, _ consumer: KafkaConsumer
    ) async throws -> String? {
        try consumer.assign([KafkaPartitionOffset(topic: place.topic, partition: place.partition, offset: start)])
        var found: String?
        let deadline = ContinuousClock.now + configuration.requestTimeout
        var next = start
        var lastProgress = ContinuousClock.now
        // Offsets may skip (compaction), so a window can end before `end`: quiet for two
        // seconds after reading something means the log has nothing more there.
        while next < end, next == start || ContinuousClock.now - lastProgress < .seconds(2) {
            guard ContinuousClock.now < deadline else {
                // A Kafka timeout, so the caller's retry policy rides out a broker outage.
                throw KafkaError.client(
                    "reading \(place) from \(start) to \(end) took longer than \(configuration.requestTimeout)",
                    operation: "find the chain's end", code: .timedOut)
            }
            for message in try await consumer.poll(maxMessages: 1000, timeout: .milliseconds(200))
            where message.topicPartition == place && message.offset >= next {
                next = message.offset + 1
                lastProgress = ContinuousClock.now
                guard message.offset < end,
                    let linkText = message.header(RecordChain.header)?.stringValue,
                    let link = RecordChain.Link(headerValue: linkText), link.source == source,
                    let signatureText = message.header(RecordChain.signatureHeader)?.stringValue,
                    let signature = RecordChain.signature(headerValue: signatureText)
                else { continue }
                found = signature.hex
            }
        }
        return found
    }
}
