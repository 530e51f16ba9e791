/// A worker's state topic is not co-partitioned with its input: a user's
/// input and state would be owned by different members, so the worker
/// refuses to start rather than decide on state it does not hold.
public struct StatePartitioningError: Error, Sendable, CustomStringConvertible {
    public var input: String
    public var inputPartitions: Int
    public var stateTopics: [(topic: String, partitions: Int)]

    public var description: String {
        let topics = stateTopics.map { "\($0.topic) has \($0.partitions)" }.joined(separator: ", ")
        return
            "state topics are not co-partitioned with the input: \(input) has \(inputPartitions) partitions, "
            + "\(topics). Give them the same partition count (intentctl topics provision --partitions N) "
            + "and key every record by user id."
    }
}
