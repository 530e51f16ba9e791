/// Where each partition's next record must start, so a record that a fetch left out is
/// fetched again instead of being skipped for good.
///
/// Found against the local broker (Tansu 0.6.0, memory storage; docs/kafka.md, its known gaps):
/// while several producers write to a partition, a fetch can return a later record before
/// an earlier one is readable (offsets 378 on without 377). librdkafka takes a fetch's
/// records as the log and moves its position past the hole, so that consumer never sees the
/// record: a payments worker lost a proposal that way (the user's answer then found nothing
/// pending). Apache Kafka does not do this, but a hole does appear there legitimately: a
/// transaction's commit marker, an aborted or compacted range. So a hole is first taken as
/// a read made too early: the partition is rewound to the missing offset and read again, up
/// to ``maximumRewinds`` times for the same hole; a hole still there then is the log's own,
/// and is reported. A transactional producer upstream thus costs a consumer one extra fetch
/// per commit marker it reads across, times ``maximumRewinds``.
///
/// Pure: the consumer hands it each polled batch, seeks where it says, and tells it which
/// partitions were assigned, revoked or moved by the application (``forget(_:)``).
struct ContiguousOffsets: Sendable {
    /// A hole in one partition's offsets between two records polled.
    struct Hole: Sendable, Hashable, CustomStringConvertible {
        var partition: KafkaTopicPartition
        /// The offset the partition's next record should have had.
        var expected: Int64
        /// The offset it had.
        var received: Int64

        var description: String { "\(partition): expected offset \(expected), received \(received)" }
    }

    enum Verdict: Sendable, Hashable {
        /// Read the partition again from `hole.expected`: none of its records polled from the
        /// hole on may be delivered (they come again after the missing ones).
        case rewind(Hole)
        /// The hole stayed after every rewind: the log's own; delivered as it is.
        case accepted(Hole)
    }

    /// Rewinds of one hole before it is taken as the log's own. The local broker's race
    /// closes within a fetch round trip; three allow for a busy machine.
    static let maximumRewinds = 3

    /// The next offset expected per partition (none before its first record since it was
    /// assigned, or since the application moved it).
    private var next: [KafkaTopicPartition: Int64] = [:]
    /// The hole each partition was last rewound for, and how many times.
    private var rewinds: [KafkaTopicPartition: (offset: Int64, count: Int)] = [:]
    /// Rewinds so far (``KafkaConsumer/holesReadAgain``).
    private(set) var rewound = 0

    /// Takes `batch` (in poll order, so in offset order within each partition) and returns
    /// its holes, at most one per partition. A record at or before the expected offset (a
    /// redelivery after a rewind or a seek) is not a hole.
    mutating func inspect(_ batch: [KafkaConsumerMessage]) -> [Verdict] {
        var verdicts: [Verdict] = []
        for message in batch {
            let partition = message.topicPartition
            let offset = message.offset
            // One look-up per record on the common path: the next offset is moved on at once and
            // put back only where a hole is rewound.
            guard let expected = next.updateValue(offset + 1, forKey: partition), offset > expected else {
                if !rewinds.isEmpty, let rewind = rewinds[partition], offset >= rewind.offset {
                    rewinds[partition] = nil
                }
                continue
            }
            // Already rewound in this batch: its later records are left out too.
            if verdicts.contains(where: {
                if case .rewind(let hole) = $0 { hole.partition == partition } else { false }
            }) {
                next[partition] = expected
                continue
            }
            let hole = Hole(partition: partition, expected: expected, received: offset)
            let count = rewinds[partition].map { $0.offset == expected ? $0.count : 0 } ?? 0
            if count < Self.maximumRewinds {
                rewinds[partition] = (expected, count + 1)
                next[partition] = expected
                rewound += 1
                verdicts.append(.rewind(hole))
            } else {
                rewinds[partition] = nil
                verdicts.append(.accepted(hole))
            }
        }
        return verdicts
    }

    /// The rewind to `hole` could not be made (the partition was revoked meanwhile, or the
    /// seek failed): its records are delivered as polled, and the hole is the log's.
    mutating func rewindFailed(_ hole: Hole, lastPolled offset: Int64) {
        rewinds[hole.partition] = nil
        next[hole.partition] = offset + 1
    }

    /// Starts these partitions afresh: assigned or revoked, or moved by the application.
    mutating func forget(_ partitions: some Sequence<KafkaTopicPartition>) {
        for partition in partitions {
            next[partition] = nil
            rewinds[partition] = nil
        }
    }

    /// Starts every partition afresh (a whole new assignment).
    mutating func forgetAll() {
        next = [:]
        rewinds = [:]
    }
}
