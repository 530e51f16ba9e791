import Foundation
import IntentEvents
import Kafka
import Logging
import Synchronization

/// Links every record a stage writes to the audited topics into its chain
/// (``RecordChain``): this source, this topic partition. Called with each round
/// just before it goes to the producer, in the order the producer sends, so the
/// chain's order is the partition's.
///
/// A chain's tip (the hash the next record names) is known from this member's
/// own writes; where it is not (the first write after start, after partitions
/// moved to this member, after a failed delivery whose record may or may not be
/// on the broker) it is read back from the end of the partition, the truth.
final class ChainStamper: Sendable {
    private let source: String
    private let keys: EventAuthenticator
    /// The chained topics, and their names without the deployment's prefix (what a link signs).
    private let chained: [String: String]
    /// The ids of this source's keys, as the bytes of a record's key-id header: a record signed
    /// with one is this worker's own (a record it forwards, as it came, to its user's partition
    /// is not, and keeps its headers).
    private let ownKeyIDs: Set<[UInt8]>
    private let reader: ChainTipReader
    private let state = Mutex(State())

    private struct State {
        var tips: [KafkaTopicPartition: String] = [:]
        var partitionCounts: [String: Int] = [:]
    }

    init(
        source: String, topics: [String: String], keys: EventAuthenticator, configuration: KafkaConfiguration,
        retry: RetryPolicy, logger: Logger
    ) {
        self.source = source
        self.chained = topics
        self.keys = keys
        self.ownKeyIDs = Set(keys.allKeys.filter { $0.source == source }.map { Array($0.id.utf8) })
        self.reader = ChainTipReader(configuration: configuration, keys: keys, retry: retry, logger: logger)
    }

    /// `records` with their links, each on an explicit partition (a user's, as the
    /// producer's partitioner would place it) so the link names the right chain.
    func stamp(_ records: [KafkaProducerMessage]) async throws -> [KafkaProducerMessage] {
        guard records.contains(where: isOwn) else { return records }
        var stamped = records
        for index in stamped.indices where isOwn(stamped[index]) {
            var record = stamped[index]
            guard record.value != nil, let partition = try await partition(of: record) else { continue }
            let place = KafkaTopicPartition(topic: record.topic, partition: partition)
            let previous = try await tip(of: place)
            // A record sent again (after a failed delivery) gets a new link, naming its earlier attempt.
            guard
                let hash = record.link(
                    after: previous, source: source, role: chained[record.topic] ?? record.topic,
                    partition: partition, keys: keys)
            else { continue }
            state.withLock { $0.tips[place] = hash }
            stamped[index] = record
        }
        return stamped
    }

    private func isOwn(_ record: KafkaProducerMessage) -> Bool {
        // Compared as bytes: no string is made for the header of every record published.
        guard chained[record.topic] != nil,
            let keyID = record.headers.last(where: { $0.key == EventSignature.keyIDHeader })?.value
        else { return false }
        return ownKeyIDs.contains(keyID)
    }

    /// Tips of these partitions (of every chained topic) are read again before the next
    /// write: another member may have written there since.
    func forget(partitions: Set<Int32>) {
        state.withLock { $0.tips = $0.tips.filter { !partitions.contains($0.key.partition) } }
    }

    /// The tip of the partitions of records whose delivery failed is read again.
    func forget(_ records: [KafkaProducerMessage]) {
        let places = Set(
            records.compactMap { record in record.partition.map { (record.topic, $0) } }.map {
                KafkaTopicPartition(topic: $0.0, partition: $0.1)
            })
        guard !places.isEmpty else { return }
        state.withLock { $0.tips = $0.tips.filter { !places.contains($0.key) } }
    }

    private func partition(of record: KafkaProducerMessage) async throws -> Int32? {
        if let partition = record.partition { return partition }
        guard let key = record.key else { return nil }
        let known = state.withLock { $0.partitionCounts[record.topic] }
        let count: Int
        if let known {
            count = known
        } else {
            count = try await reader.partitionCount(of: record.topic)
            state.withLock { $0.partitionCounts[record.topic] = count }
        }
        return KafkaPartitioner.partition(forKey: key, partitions: max(count, 1))
    }

    private func tip(of place: KafkaTopicPartition) async throws -> String {
        if let known = state.withLock({ $0.tips[place] }) { return known }
        let found =
            try await reader.lastLink(of: source, in: place, role: chained[place.topic] ?? place.topic)
            ?? RecordChain.genesis
        state.withLock { $0.tips[place] = found }
        return found
    }
}
