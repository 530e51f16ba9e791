import Foundation

/// What librdkafka reports every `statistics.interval.ms` (its STATISTICS.md),
/// reduced to what an operator watches: whether brokers are up, how far each
/// assigned partition lags, and how many records wait in the client's queues.
/// Parsed off the hot path, once per interval, from the JSON librdkafka hands
/// the stats callback.
public struct KafkaStatistics: Sendable, Hashable {
    public struct Broker: Sendable, Hashable {
        /// `host:port/nodeid` as librdkafka names it.
        public var name: String
        /// The broker's node id; -1 for a bootstrap address not yet mapped to a node.
        public var nodeID: Int
        /// `UP`, `DOWN`, `INIT`, `CONNECT`, `AUTH`, …
        public var state: String
        /// Average round-trip time over the interval; nil before the first request.
        public var averageRoundTrip: Duration?

        public var isUp: Bool { state == "UP" }
    }

    public struct Partition: Sendable, Hashable {
        public var topic: String
        public var partition: Int32
        /// Records between the committed offset and the high watermark; nil while unknown.
        public var consumerLag: Int64?
        public var highWatermark: Int64?
        public var committedOffset: Int64?
        /// Whether this consumer wants the partition (assigned to it); librdkafka also
        /// reports partitions it merely knows of.
        public var isAssigned: Bool
    }

    /// The client's own instance name (`rdkafka#consumer-1`).
    public var clientName: String
    /// Records (produced or fetched) waiting in the client's queues.
    public var queuedMessages: Int64
    /// Records sent and received over the client's lifetime.
    public var transmittedMessages: Int64
    public var receivedMessages: Int64
    public var brokers: [Broker]
    /// The partitions this client fetches or produces to (librdkafka's internal
    /// unassigned partition, -1, is left out), sorted by topic and partition.
    public var partitions: [Partition]

    /// Whether at least one real broker (not only a bootstrap address) is up.
    public var anyBrokerUp: Bool { brokers.contains { $0.nodeID >= 0 && $0.isUp } }

    public init(
        clientName: String, queuedMessages: Int64, transmittedMessages: Int64, receivedMessages: Int64,
        brokers: [Broker], partitions: [Partition]
    ) {
        self.clientName = clientName
        self.queuedMessages = queuedMessages
        self.transmittedMessages = transmittedMessages
        self.receivedMessages = receivedMessages
        self.brokers = brokers
        self.partitions = partitions
    }

    /// Parses librdkafka's statistics JSON; nil when it is not an object.
    /// Missing fields read as zero or unknown: the format grows between versions.
    public init?(json: some Collection<UInt8>) {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else { return nil }
        func integer(_ object: [String: Any], _ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }
        func known(_ value: Int64?) -> Int64? { value.flatMap { $0 >= 0 ? $0 : nil } }
        clientName = root["name"] as? String ?? ""
        queuedMessages = integer(root, "msg_cnt") ?? 0
        transmittedMessages = integer(root, "txmsgs") ?? 0
        receivedMessages = integer(root, "rxmsgs") ?? 0
        brokers = ((root["brokers"] as? [String: Any]) ?? [:]).values.compactMap { value in
            // Logical brokers (the group coordinator's alias) repeat a real one.
            guard let broker = value as? [String: Any], broker["source"] as? String != "logical" else { return nil }
            let rtt = (broker["rtt"] as? [String: Any]).flatMap { integer($0, "avg") }
            return Broker(
                name: broker["name"] as? String ?? "", nodeID: Int(integer(broker, "nodeid") ?? -1),
                state: broker["state"] as? String ?? "",
                averageRoundTrip: rtt.flatMap { $0 > 0 ? .microseconds($0) : nil })
        }.sorted { $0.name < $1.name }
        var partitions: [Partition] = []
        for (topicName, value) in (root["topics"] as? [String: Any]) ?? [:] {
            guard let topic = value as? [String: Any], let byID = topic["partitions"] as? [String: Any] else {
                continue
            }
            for case let partition as [String: Any] in byID.values {
                guard let id = integer(partition, "partition"), id >= 0, id <= Int64(Int32.max) else { continue }
                partitions.append(
                    Partition(
                        topic: topicName, partition: Int32(id), consumerLag: known(integer(partition, "consumer_lag")),
                        highWatermark: known(integer(partition, "hi_offset")),
                        committedOffset: known(integer(partition, "committed_offset")),
                        isAssigned: (partition["desired"] as? Bool) ?? false))
            }
        }
        self.partitions = partitions.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
    }
}
