public import IntentEvents

/// A Kafka-like cluster in memory, for tests and the simulation: topics of
/// partitions of records, consumer groups with members, their assignment (ranges
/// over the members in join order) and committed offsets. Deterministic: no clock,
/// no threads; whoever drives it decides what happens when.
public struct InMemoryCluster: Sendable {
    /// One record as a reader sees it.
    public struct Record: Sendable, Hashable {
        public var key: String?
        public var value: [UInt8]
        public var signature: EventSignature?

        public init(key: String?, value: [UInt8], signature: EventSignature?) {
            self.key = key
            self.value = value
            self.signature = signature
        }
    }

    /// A consumer group: its members in join order, their generation, committed offsets.
    struct Group: Sendable {
        var members: [String] = []
        var generation = 0
        var committed: [Int32: Int64] = [:]
    }

    public let partitionCount: Int
    private var topics: [String: [[Record]]] = [:]
    private var groups: [String: Group] = [:]

    public init(partitionCount: Int) { self.partitionCount = partitionCount }

    /// The partition a key belongs to (FNV-1a; the cluster's own partitioner).
    public func partition(forKey key: String?) -> Int32 {
        Int32(truncatingIfNeeded: Fingerprint.of((key ?? "").utf8) % UInt64(partitionCount))
    }

    /// Appends `record` to its key's partition of `topic`; returns where it landed.
    @discardableResult
    public mutating func append(_ record: Record, to topic: String) -> (partition: Int32, offset: Int64) {
        let partition = self.partition(forKey: record.key)
        // Appended in place, with one look-up of the topic (and an empty topic made only
        // for its first record): every record of a run is appended here.
        func append(to partitions: inout [[Record]]) -> Int64 {
            partitions[Int(partition)].append(record)
            return Int64(partitions[Int(partition)].count - 1)
        }
        return (partition, append(to: &topics[topic, default: Array(repeating: [], count: partitionCount)]))
    }

    /// The records of one partition from `offset` on (at most `limit`).
    public func records(of topic: String, partition: Int32, from offset: Int64, limit: Int = .max) -> ArraySlice<
        Record
    > {
        guard let records = topics[topic]?[Int(partition)], offset < records.count else { return [] }
        return records[Int(offset)..<(Int(offset) + min(records.count - Int(offset), limit))]
    }

    /// Each partition's records of `topic`, indexed by partition (one topic look-up for a
    /// poll over several partitions, which most turns make and most find empty).
    public func partitions(of topic: String) -> [[Record]] {
        topics[topic] ?? Array(repeating: [], count: partitionCount)
    }

    /// Every record of `topic`, partition by partition.
    public func records(of topic: String) -> [(partition: Int32, record: Record)] {
        (topics[topic] ?? []).enumerated().flatMap { partition, records in
            records.map { (Int32(partition), $0) }
        }
    }

    public func endOffset(of topic: String, partition: Int32) -> Int64 {
        Int64(topics[topic]?[Int(partition)].count ?? 0)
    }

    // MARK: Groups

    /// Adds `member` to `group`: the group rebalances (a new generation).
    public mutating func join(_ group: String, member: String) {
        groups[group, default: Group()].members.append(member)
        groups[group, default: Group()].generation += 1
    }

    /// Removes `member` (it left or its session expired): the group rebalances.
    public mutating func leave(_ group: String, member: String) {
        groups[group]?.members.removeAll { $0 == member }
        groups[group]?.generation += 1
    }

    public func members(of group: String) -> [String] { groups[group]?.members ?? [] }

    /// The partitions `member` owns in the group's current generation: contiguous ranges
    /// over the members in join order.
    public func assignment(of member: String, in group: String) -> Set<Int32> {
        guard let members = groups[group]?.members, let index = members.firstIndex(of: member) else { return [] }
        return Set(
            (0..<partitionCount).filter { $0 * members.count / partitionCount == index }.map { Int32($0) })
    }

    /// Commits `offsets` for the partitions `member` owns now; the others are refused, as a
    /// broker refuses a commit from a member of an older generation.
    public mutating func commit(_ offsets: [Int32: Int64], group: String, member: String) {
        let owned = assignment(of: member, in: group)
        for (partition, offset) in offsets where owned.contains(partition) {
            groups[group, default: Group()].committed[partition] = offset
        }
    }

    public func committed(_ partition: Int32, group: String) -> Int64 {
        groups[group]?.committed[partition] ?? 0
    }
}

/// FNV-1a, 64 bits: the cluster's partitioner and the simulation's digest of its outputs.
public enum Fingerprint {
    public static func of(_ bytes: some Sequence<UInt8>, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
