import IntentEvents
public import Kafka
public import Logging
import PipelineTopics

/// What a stage remembers of the input records it acted on (its ``ReplayGuard``s, resolve's
/// turn tracker), made durable the way a Kafka Streams engineer rebuilds a store: from a
/// log that is already durable. The consumer group's committed offset of an input partition
/// is the durable record of what was acted on there: every record before it was decided and
/// its outputs acknowledged by the broker, none after it was (the worker commits only
/// then). So when a worker gains a partition (at start, after a restart, after a rebalance
/// moved it from another member) it reads that partition back up to the committed offset and
/// remembers each record exactly as the stage remembered it when it acted, before the first
/// decision on the partition: a validly signed copy re-appended later is then a replay to
/// the restarted worker as it was to the one that never stopped (no prompt, no hold, no
/// response). Records from the committed offset on are redelivered and decided normally, so
/// an at-least-once redo of an uncommitted record (same event ids) is not refused: what a
/// partition remembers is replaced, not added to, on every gain.
///
/// Why this and not a changelog topic of the guards' entries: the input already holds every
/// entry (id and the signature that fingerprints it), in order, and its committed offset is
/// exactly the point up to which they count, so a changelog would be a second copy that has
/// to be kept in step with the commits (and fenced) for nothing. Nothing is persisted, so the
/// per-process seed of Swift's `Hasher` in ``ReplayGuard`` does no harm: each process computes
/// every fingerprint it compares itself, from the records.
///
/// Where reading back starts: at most ``depth`` records before the committed offset (the
/// guard's capacity: it could not hold more anyway), and the stage's own freshness check
/// drops what is older than the stage events' bound. Not found by time: the local broker's
/// `offsets_for_times` is wrong (see ENVIRONMENT.md), and record timestamps are whatever
/// the producer stamped, so a bisection over them could be steered past the original by
/// anyone who may append to the topic; a count cannot.
public struct ReplayMemory: Sendable {
    /// At most this many records before the committed offset are read back per gained partition.
    public var depth: Int
    /// Forgets what is remembered of these partitions, before their records are read back.
    public var reset: @Sendable (Set<Int32>) -> Void
    /// Remembers one record read back (in offset order within its partition), only as the
    /// stage would have remembered it when it acted on it (verified, fresh).
    public var remember: @Sendable (KafkaConsumerMessage) -> Void

    public init(
        depth: Int, reset: @escaping @Sendable (Set<Int32>) -> Void,
        remember: @escaping @Sendable (KafkaConsumerMessage) -> Void
    ) {
        precondition(depth > 0)
        self.depth = depth
        self.reset = reset
        self.remember = remember
    }

    /// Where reading a partition back starts: `depth` records before the group's `committed`
    /// offset (the reader starts no earlier than the oldest retained record). Nil when the
    /// group committed nothing there: nothing was acted on durably.
    public static func start(committed: Int64?, depth: Int) -> Int64? {
        guard let committed, committed > 0 else { return nil }
        return max(0, committed - Int64(depth))
    }

    /// Replaces what is remembered of `partitions` of `topic` by their records before the
    /// group's `committed` offsets (as ``KafkaConsumer/committed(_:timeout:)`` answers), read
    /// back in offset order. Returns how many records were read. A record keyed to another
    /// partition than its own (forwarded when it was decided, not acted on) is remembered
    /// too; it can shadow only an event of the same id on the same partition, which a
    /// correctly keyed event never is.
    public func restore(
        _ partitions: Set<Int32>, of topic: String, committed: [KafkaTopicPartition: Int64?],
        configuration: KafkaConfiguration, logger: Logger
    ) async throws -> Int {
        reset(partitions)
        var start: [KafkaTopicPartition: Int64] = [:]
        var end: [KafkaTopicPartition: Int64] = [:]
        for partition in partitions {
            let position = KafkaTopicPartition(topic: topic, partition: partition)
            guard let committedOffset = committed[position] ?? nil,
                let first = Self.start(committed: committedOffset, depth: depth)
            else { continue }
            (start[position], end[position]) = (first, committedOffset)
        }
        guard !end.isEmpty else { return 0 }
        var count = 0
        try await TopicReader.forEachRecord(
            of: topic, between: start, and: end, only: Set(end.keys.map(\.partition)), configuration: configuration,
            logger: logger
        ) { message in
            count += 1
            // As the loop decides it: a binary-mode record as its structured event.
            if let record = try? message.structuredEvent() { remember(record) }
        }
        return count
    }
}

extension ReplayMemory {
    /// One ``ReplayGuard`` per owned input partition (the confirm, payments and handle
    /// workers'), rebuilt with the stage's `remember` (its checks, then the guard).
    static func guards(
        _ seen: PartitionedState<ReplayGuard?>,
        remember: @escaping @Sendable (KafkaConsumerMessage, inout ReplayGuard?) -> Void
    ) -> ReplayMemory {
        ReplayMemory(
            depth: ReplayGuard().capacity,
            reset: { partitions in
                for partition in partitions { seen.install(ReplayGuard(), in: partition) }
            },
            remember: { message in seen.withValue(in: message.partition) { remember(message, &$0) } })
    }
}
