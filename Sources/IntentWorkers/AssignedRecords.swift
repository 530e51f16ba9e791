import Kafka

/// Keeps the input records of partitions this member still holds.
///
/// librdkafka serves the rebalance callback inside the poll that returns a batch, so a batch
/// can hold records fetched before the callback took their partition away. They are not this
/// member's to decide: the partition's state is given up (its followers forget it, fencing
/// releases it), so a decision would be made against an empty state and its offsets stored
/// for a partition another member now owns. The next owner reads them again from the last
/// commit. (Found as a model gap by the simulation's fencing work: its members no longer
/// decide records of partitions revoked since they were polled.)
enum AssignedRecords {
    static func keeping(
        _ batch: [KafkaConsumerMessage], input: String, assigned: Set<Int32>
    ) -> [KafkaConsumerMessage] {
        guard batch.contains(where: { $0.topic == input && !assigned.contains($0.partition) }) else { return batch }
        return batch.filter { $0.topic != input || assigned.contains($0.partition) }
    }
}
