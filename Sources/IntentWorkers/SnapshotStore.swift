import Foundation
import IntentCrypto
public import IntentEvents
public import Kafka
import Logging
public import PipelineTopics

/// Snapshots of a worker's partitioned state in a topic co-partitioned with
/// the state topic: partition p holds snapshots of state partition p. A
/// snapshot is its state's bytes in chunks, then a signed manifest naming
/// the chunks' offsets, the bytes' digest and the state-topic position the
/// state is at. A restore reads the partition's last manifest (from the end:
/// the cost is the snapshot, never the topic's history), checks it, and the
/// follower reads the state topic on from that position only.
///
/// Keys are unique per snapshot (`<position>/<writer instance>/<chunk>`: two
/// members that snapshot one partition at the same position during a handover
/// never share a key), so compaction keeps a manifest's chunks; the writer tombstones the previous snapshot's chunks
/// once the next manifest is acknowledged, and the compacted topic keeps
/// about one snapshot per partition. A snapshot that cannot be read or
/// verified is never used: the partition is rebuilt from its state topic,
/// which stays the truth.
public struct SnapshotStore: Sendable {
    public let topic: String
    /// The state topic the snapshots are of.
    public let stateTopic: String
    /// Who writes the snapshots (their manifests are signed with its key).
    public let writer: String
    public let keys: EventAuthenticator
    /// How manifests are checked: the confirm stage reads the payments stage's snapshots by
    /// their view signatures (``RecordTrust``).
    private let trust: RecordTrust
    private let verifying: EventAuthenticator
    public let configuration: KafkaConfiguration
    /// Chunks stay well below the producer's and the broker's record limits.
    public static let chunkBytes = 512 * 1024
    static let manifestKey = "manifest"
    /// The largest manifest read: a manifest names a chunk's offset for each 512 KiB of state,
    /// so a real one is a few hundred bytes; a larger record keyed `manifest` is not kept while
    /// the search reads (anyone can append a flood of large ones).
    static let maximumManifestBytes = 64 * 1024

    public init(
        topic: String, stateTopic: String, writer: String, keys: EventAuthenticator, trust: RecordTrust = .signature,
        configuration: KafkaConfiguration
    ) {
        self.topic = topic
        self.stateTopic = stateTopic
        self.writer = writer
        self.keys = keys
        self.trust = trust
        self.verifying = trust.verifying(keys)
        self.configuration = configuration
    }

    /// What a manifest says; signed by the writer over its canonical JSON bytes.
    struct Manifest: Codable, Hashable {
        var stateTopic: String
        var partition: Int32
        /// The state-topic offset the state has read up to (the next record to apply).
        var position: Int64
        var chunkOffsets: [Int64]
        var bytes: Int
        var sha256: String
    }

    /// A snapshot read back: the state's bytes and the state-topic position after them.
    public struct Restored: Sendable {
        public var position: Int64
        public var bytes: [UInt8]
        /// The keys of its chunks: whoever writes the partition's next snapshot tombstones them.
        public var chunkKeys: [[UInt8]]
    }

    /// Why a snapshot was not used (logged; the partition is rebuilt from the state topic).
    public struct Unusable: Error, CustomStringConvertible {
        public var description: String
    }

    // MARK: Writing

    /// Writes one partition's snapshot: the chunks, then (once they are acknowledged,
    /// so the manifest names their offsets) the manifest; then tombstones the chunks of
    /// the snapshot before it, whose keys `previous` names. Returns this snapshot's chunk keys.
    func write(
        partition: Int32, position: Int64, bytes: [UInt8], previous: [[UInt8]], writerInstance: String,
        producer: KafkaProducer
    ) async throws -> [[UInt8]] {
        var chunks: [KafkaProducerMessage] = []
        var start = 0
        repeat {
            let end = min(start + Self.chunkBytes, bytes.count)
            chunks.append(
                KafkaProducerMessage(
                    topic: topic, partition: partition,
                    key: Array("\(position)/\(writerInstance)/\(chunks.count)".utf8),
                    value: Array(bytes[start..<end])))
            start = end
        } while start < bytes.count
        let reports = try await producer.sendAll(chunks)
        let manifest = Manifest(
            stateTopic: stateTopic, partition: partition, position: position, chunkOffsets: reports.map(\.offset),
            bytes: bytes.count, sha256: Digest.hex(Digest.sha256(bytes)))
        let value = CanonicalJSON.encode(manifest)
        var record = KafkaProducerMessage(
            topic: topic, partition: partition, key: Array(Self.manifestKey.utf8), value: value)
        record.sign(value, as: writer, with: keys)
        _ = try await producer.send(record)
        if !previous.isEmpty {
            _ = try await producer.sendAll(
                previous.map { KafkaProducerMessage(topic: topic, partition: partition, key: $0, value: nil) })
        }
        return chunks.compactMap(\.key)
    }

    // MARK: Reading

    /// The latest snapshot of each of `partitions` that has one, read with one
    /// consumer: per partition the restored bytes, or why its snapshot is not
    /// usable (``Unusable``). Partitions without a snapshot are absent.
    func latest(partitions: [Int32], logger: Logger) async throws -> [Int32: Result<Restored, Unusable>] {
        let wanted = partitions.map { KafkaTopicPartition(topic: topic, partition: $0) }
        let marks = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
            try await $0.watermarks(wanted)
        }
        let present = wanted.filter { (marks[$0]?.high ?? 0) > (marks[$0]?.low ?? 0) }
        guard !present.isEmpty else { return [:] }
        // Snapshots are read whole: large fetches, few round trips (a partition's state is megabytes).
        var consumerConfiguration = KafkaConsumerConfiguration(
            client: configuration, groupID: "snapshot-\(UUID().uuidString)")
        consumerConfiguration.maximumPartitionFetchBytes = 16 * 1024 * 1024
        consumerConfiguration.maximumFetchBytes = 64 * 1024 * 1024
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger)
        do {
            let restored = try await read(consumer, present, marks)
            await consumer.close()
            return restored
        } catch {
            await consumer.close()
            throw error
        }
    }

    private func read(
        _ consumer: KafkaConsumer, _ partitions: [KafkaTopicPartition], _ marks: [KafkaTopicPartition: KafkaWatermarks]
    ) async throws -> [Int32: Result<Restored, Unusable>] {
        var results: [Int32: Result<Restored, Unusable>] = [:]
        // Each partition's last manifest that its writer signed for this very partition:
        // normally its last record; after an interrupted write, a few chunks follow it, so the
        // window back from the end grows until one is found. A manifest that is not (anyone can
        // append a record keyed `manifest`) is passed over for the one before it, so one junk
        // record does not make the partition rebuild from its state topic's start; only records
        // keyed `manifest` of a manifest's size are kept in memory while searching. (Compaction
        // keeps only a key's last record: once it runs, a junk manifest has removed the one
        // before it, and the partition is rebuilt from the state topic, as it was for any.)
        var manifests: [KafkaTopicPartition: Manifest] = [:]
        var passedOver: [KafkaTopicPartition: Unusable] = [:]
        var searching = Set(partitions)
        var window: Int64 = 16
        let manifestKey = Array(Self.manifestKey.utf8)
        while !searching.isEmpty {
            var ranges: [KafkaTopicPartition: Range<Int64>] = [:]
            for tp in searching {
                let (low, high) = (marks[tp]?.low ?? 0, marks[tp]?.high ?? 0)
                ranges[tp] = max(low, high - window)..<high
            }
            let candidates = try await records(consumer, ranges) {
                $0.key == manifestKey && ($0.value?.count ?? 0) <= Self.maximumManifestBytes
            }
            for (tp, messages) in candidates {
                for message in messages.reversed() {
                    do {
                        manifests[tp] = try usableManifest(message.value ?? [], message, partition: tp.partition)
                        break
                    } catch {
                        // The newest one passed over says why, if none is found.
                        passedOver[tp] = passedOver[tp] ?? error
                    }
                }
            }
            searching = searching.filter { tp in
                manifests[tp] == nil && ranges[tp]?.lowerBound ?? 0 > marks[tp]?.low ?? 0
            }
            window *= 4
        }
        for (tp, reason) in passedOver where manifests[tp] == nil { results[tp.partition] = .failure(reason) }
        // Their chunks, all partitions at once.
        var chunkRanges: [KafkaTopicPartition: Range<Int64>] = [:]
        for (tp, manifest) in manifests {
            guard let first = manifest.chunkOffsets.min(), let last = manifest.chunkOffsets.max() else {
                results[tp.partition] = .failure(Unusable(description: "the manifest names no chunk"))
                continue
            }
            guard first >= marks[tp]?.low ?? 0 else {
                results[tp.partition] = .failure(
                    Unusable(description: "its chunks from offset \(first) are no longer retained"))
                continue
            }
            chunkRanges[tp] = first..<(last + 1)
        }
        for (tp, messages) in try await records(consumer, chunkRanges) {
            guard let manifest = manifests[tp] else { continue }
            results[tp.partition] = Result { () throws(Unusable) in try Self.assemble(manifest, messages) }
        }
        return results
    }

    /// A manifest's bytes from its chunks, checked against its length and digest.
    private static func assemble(_ manifest: Manifest, _ messages: [KafkaConsumerMessage]) throws(Unusable)
        -> Restored
    {
        var byOffset: [Int64: [UInt8]] = [:]
        let wanted = Set(manifest.chunkOffsets)
        var keys: [[UInt8]] = []
        for message in messages where wanted.contains(message.offset) {
            byOffset[message.offset] = message.value ?? []
            if let key = message.key { keys.append(key) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(manifest.bytes)
        for offset in manifest.chunkOffsets {
            guard let chunk = byOffset[offset] else { throw Unusable(description: "chunk at offset \(offset) missing") }
            bytes += chunk
        }
        guard bytes.count == manifest.bytes, Digest.hex(Digest.sha256(bytes)) == manifest.sha256 else {
            throw Unusable(description: "its chunks do not match the manifest's digest")
        }
        return Restored(position: manifest.position, bytes: bytes, chunkKeys: keys)
    }

    /// The manifest in `message` if its writer signed it and it is for this state topic's `partition`.
    private func usableManifest(_ value: [UInt8], _ message: KafkaConsumerMessage, partition: Int32) throws(Unusable)
        -> Manifest
    {
        let manifest = try verifiedManifest(value, message)
        guard manifest.stateTopic == stateTopic, manifest.partition == partition else {
            throw Unusable(
                description:
                    "its manifest at offset \(message.offset) is for \(manifest.stateTopic) partition \(manifest.partition)"
            )
        }
        return manifest
    }

    private func verifiedManifest(_ value: [UInt8], _ message: KafkaConsumerMessage) throws(Unusable) -> Manifest {
        do throws(EventDecodingError) {
            try verifying.verify(
                canonical: value, source: writer, what: "a snapshot manifest",
                signature: trust.signature(of: message))
        } catch {
            throw Unusable(description: "its manifest at offset \(message.offset) is not \(writer)'s: \(error)")
        }
        do {
            return try JSONDecoder().decode(Manifest.self, from: Data(value))
        } catch {
            throw Unusable(description: "its manifest at offset \(message.offset) cannot be read: \(error)")
        }
    }

    /// The records of each partition in its range that `keeping` keeps, read outside any group.
    private func records(
        _ consumer: KafkaConsumer, _ ranges: [KafkaTopicPartition: Range<Int64>],
        keeping: (KafkaConsumerMessage) -> Bool = { _ in true }
    ) async throws -> [KafkaTopicPartition: [KafkaConsumerMessage]] {
        let ranges = ranges.filter { !$0.value.isEmpty }
        guard !ranges.isEmpty else { return [:] }
        try consumer.assign(
            ranges.map {
                KafkaPartitionOffset(topic: $0.key.topic, partition: $0.key.partition, offset: $0.value.lowerBound)
            }
        )
        var records: [KafkaTopicPartition: [KafkaConsumerMessage]] = [:]
        var next = ranges.mapValues(\.lowerBound)
        let deadline = ContinuousClock.now + .seconds(120)
        while next.contains(where: { $0.value < ranges[$0.key]!.upperBound }) {
            guard ContinuousClock.now < deadline else {
                throw Unusable(description: "reading \(topic) timed out at \(next)")
            }
            for message in try await consumer.poll(maxMessages: 1000, timeout: .milliseconds(500)) {
                let tp = message.topicPartition
                guard let range = ranges[tp], let position = next[tp], message.offset >= position,
                    message.offset < range.upperBound
                else { continue }
                if keeping(message) { records[tp, default: []].append(message) }
                next[tp] = message.offset + 1
            }
        }
        return records
    }
}
