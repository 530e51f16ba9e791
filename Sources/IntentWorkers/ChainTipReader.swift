import Foundation
import IntentEvents
import Kafka
import Logging

/// Finds where a source's chain ends on a partition: reads the partition
/// backwards from its end in growing windows (the last record of a chain is
/// usually among the last few hundred) until a record chained by that source
/// turns up, or the partition's start is reached (a new chain).
///
/// Only a link that verifies counts: a record anyone appended with a made-up
/// link naming the stage would otherwise become the worker's next predecessor,
/// and the stage's genuine successor would look like a deletion. A partition
/// without the chain in its last ``scanLimit`` records starts a new chain rather
/// than reading a large topic whole (the first start on topics written before
/// chains existed).
final class ChainTipReader: Sendable {
    private let configuration: KafkaConfiguration
    private let logger: Logger
    private let keys: EventAuthenticator
    /// How lookups ride out an outage (the worker's ``RetryPolicy``).
    private let retry: RetryPolicy
    /// Records read back at most per search.
    static let scanLimit: Int64 = 200_000
    static let largestWindow: Int64 = 16_384

    init(configuration: KafkaConfiguration, keys: EventAuthenticator, retry: RetryPolicy, logger: Logger) {
        self.configuration = configuration
        self.retry = retry
        self.keys = keys
        self.logger = logger
    }

    func partitionCount(of topic: String) async throws -> Int {
        try await retry.retrying("look up the partitions of \(topic)", logger: logger) {
            try await KafkaOffsetLookup.partitionCount(
                of: topic, configuration: self.configuration, logger: self.logger)
        }
    }

    /// The hash (link signature) of the last record `source` chained on `place`; nil when it
    /// has none there (or none in the last ``scanLimit`` records). `role` is the topic's name
    /// without the prefix, which links sign.
    func lastLink(of source: String, in place: KafkaTopicPartition, role: String) async throws -> String? {
        try await retry.retrying("find the chain's end on \(place)", logger: logger) {
            try await self.search(source, place, role)
        }
    }

    private func search(_ source: String, _ place: KafkaTopicPartition, _ role: String) async throws -> String? {
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
            let floor = max(bounds.low, bounds.high - Self.scanLimit)
            while end > floor {
                let start = max(floor, end - window)
                if let found = try await lastLink(of: source, in: place, role: role, from: start, to: end, consumer) {
                    await consumer.close()
                    return found
                }
                end = start
                window = min(window * 4, Self.largestWindow)
            }
            await consumer.close()
            if floor > bounds.low {
                logger.warning(
                    "no chain of \(source) in the last \(Self.scanLimit) records of \(place): starting a new one")
            }
            return nil
        } catch {
            await consumer.close()
            throw error
        }
    }

    /// The last verified link of `source` among the records at offsets `start..<end`.
    private func lastLink(
        of source: String, in place: KafkaTopicPartition, role: String, from start: Int64, to end: Int64,
        _ consumer: KafkaConsumer
    ) async throws -> String? {
        try consumer.assign([KafkaPartitionOffset(topic: place.topic, partition: place.partition, offset: start)])
        var found: String?
        var next = start
        var lastProgress = ContinuousClock.now
        // Offsets may skip (compaction), so a window can end before `end`: quiet for two
        // seconds after reading something means the log has nothing more there. Reading
        // nothing at all for the request timeout is an error (retried: an outage).
        while next < end, next == start || ContinuousClock.now - lastProgress < .seconds(2) {
            guard ContinuousClock.now - lastProgress < configuration.requestTimeout else {
                // A Kafka timeout, so the caller's retry policy rides out a broker outage.
                throw KafkaError.client(
                    "reading \(place) from \(start) to \(end): nothing for \(configuration.requestTimeout)",
                    operation: "find the chain's end", code: .timedOut)
            }
            for message in try await consumer.poll(maxMessages: 1000, timeout: .milliseconds(200))
            where message.topicPartition == place && message.offset >= next {
                next = message.offset + 1
                lastProgress = ContinuousClock.now
                guard message.offset < end, let value = message.value,
                    let linkText = message.header(RecordChain.header)?.stringValue,
                    let link = RecordChain.Link(headerValue: linkText), link.source == source,
                    let signatureText = message.header(RecordChain.signatureHeader)?.stringValue,
                    let signature = RecordChain.signature(headerValue: signatureText),
                    (try? RecordChain.verify(
                        signature, topic: role, partition: place.partition, link: link, value: value, keys: keys))
                        != nil
                else { continue }
                found = signature.hex
            }
        }
        return found
    }
}
