extension KafkaTopicSpecification {
    /// How an existing topic differs from this specification, one sentence per
    /// difference; empty when it matches. A user-keyed topic with another
    /// partition count sends a user's events to other partitions than the
    /// workers expect; a state topic that is not compacted (or is, when it
    /// should keep every record) loses or keeps the wrong history. Neither can be
    /// fixed by creating the topic again, so provisioning reports it instead.
    public func drift(from description: KafkaTopicDescription, configuration: [String: String]) -> [String] {
        var differences: [String] = []
        if description.partitions.count != partitions {
            differences.append("\(name) has \(description.partitions.count) partitions, \(partitions) wanted")
        }
        if replicationFactor > 0,
            let shortest = description.partitions.map(\.replicas.count).min(), shortest != replicationFactor
        {
            differences.append("\(name) has replication factor \(shortest), \(replicationFactor) wanted")
        }
        for (key, value) in config.sorted(by: { $0.key < $1.key }) where configuration[key] != value {
            differences.append("\(name) has \(key)=\(configuration[key] ?? "(unset)"), \(value) wanted")
        }
        return differences
    }
}
