/// Consumer settings. Offsets are committed only by the application, after
/// it has handled or parked a message (at-least-once), never automatically.
public struct KafkaConsumerConfiguration: Sendable, Hashable {
    public enum OffsetReset: String, Sendable, Hashable {
        /// Start from the oldest retained message when the group has no offset.
        case earliest
        /// Start from new messages only.
        case latest
    }

    public var client: KafkaConfiguration
    /// The consumer group. Every instance of a worker uses the same one.
    public var groupID: String
    /// Where a group with no committed offset starts.
    public var offsetReset: OffsetReset
    /// How long a silent member stays in the group (`session.timeout.ms`).
    /// Lower rejoins faster after a crash; too low causes spurious rebalances.
    public var sessionTimeout: Duration
    public var heartbeatInterval: Duration
    /// Maximum time between polls before the member is considered stuck.
    public var maxPollInterval: Duration
    /// `cooperative-sticky` moves only the partitions that must move on a
    /// rebalance, so the others keep processing.
    public var assignmentStrategy: String
    /// `read_committed` hides records of aborted transactions on brokers that
    /// support it; the local broker does not, so nothing relies on it.
    public var readCommitted: Bool
    /// Bytes asked for per partition per fetch (`max.partition.fetch.bytes`).
    /// Not a limit on record size: a record larger than this (or than
    /// ``maximumFetchBytes``) is still returned as the first of its fetch,
    /// so an oversized record reaches the worker, which parks it.
    public var maximumPartitionFetchBytes: Int = 1_048_576
    /// Bytes asked for per fetch over all partitions (`fetch.max.bytes`).
    public var maximumFetchBytes: Int = 52_428_800
    /// The largest response this consumer accepts from a broker
    /// (`receive.message.max.bytes`; librdkafka requires at least
    /// ``maximumFetchBytes`` + 512). This is the real ceiling on the size of a
    /// record a consumer can read: one larger makes every fetch of its
    /// partition fail (the connection is dropped and retried), so brokers must
    /// refuse records above it (Kafka's `message.max.bytes`/topic
    /// `max.message.bytes`, 1 MiB by default).
    public var maximumResponseBytes: Int = 100_000_000
    /// How long a fetch may wait for data on an idle partition (`fetch.wait.max.ms`).
    /// Apache Kafka answers a fetch as soon as data arrives, so there this only
    /// bounds empty round trips and 100-500 ms costs no latency (the manifests
    /// set 100); the local broker (Tansu) waits it out even when data arrives,
    /// so it adds up to this much to every hop. Measured with `intent-bench
    /// pipeline` (docs/kafka.md, latency-aware defaults): a message round trip at 100
    /// intents/s had p50/p99 of 25/36 ms at 25 ms, 12/29 ms at 5 ms and 10/21 ms
    /// at 2 ms; the local broker's CPU with four idle workers (and the
    /// benchmark's own 1 ms reader) went from 26 % to 33 % to 44 % of a core.
    /// 5 ms, because at 2 ms a consumer did not resume after the local broker
    /// was killed and restarted (`BrokerDurabilityTests`, 2 runs of 2; 5 ms passes;
    /// `BrokerOutageTests` runs its workers at this default, the other tests at 50 ms).
    /// `KAFKA_FETCH_WAIT_MAX_MS` (or `--kafka-property fetch.wait.max.ms=N`) sets it per worker.
    public var maximumFetchWait: Duration = .milliseconds(5)

    public init(
        client: KafkaConfiguration,
        groupID: String,
        offsetReset: OffsetReset = .earliest,
        sessionTimeout: Duration = .seconds(10),
        heartbeatInterval: Duration = .seconds(1),
        maxPollInterval: Duration = .seconds(300),
        assignmentStrategy: String = "cooperative-sticky",
        readCommitted: Bool = false
    ) {
        self.client = client
        self.groupID = groupID
        self.offsetReset = offsetReset
        self.sessionTimeout = sessionTimeout
        self.heartbeatInterval = heartbeatInterval
        self.maxPollInterval = maxPollInterval
        self.assignmentStrategy = assignmentStrategy
        self.readCommitted = readCommitted
    }

    /// The effective librdkafka properties, e.g. for `intentctl kafka config`.
    public var librdkafkaProperties: [String: String] {
        let result: [String: String] = [
            "max.partition.fetch.bytes": String(maximumPartitionFetchBytes),
            "fetch.max.bytes": String(maximumFetchBytes),
            "receive.message.max.bytes": String(max(maximumResponseBytes, maximumFetchBytes + 512)),
            "fetch.wait.max.ms": String(maximumFetchWait.milliseconds),
            "group.id": groupID,
            "auto.offset.reset": offsetReset.rawValue,
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "session.timeout.ms": String(sessionTimeout.milliseconds),
            "heartbeat.interval.ms": String(heartbeatInterval.milliseconds),
            "max.poll.interval.ms": String(maxPollInterval.milliseconds),
            "partition.assignment.strategy": assignmentStrategy,
            "isolation.level": readCommitted ? "read_committed" : "read_uncommitted",
        ]
        return result.merging(client.librdkafkaProperties) { $1 }
    }
}
