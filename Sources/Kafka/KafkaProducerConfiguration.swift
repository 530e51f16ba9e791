/// Producer settings. Defaults are for a pipeline that must not lose or
/// duplicate events: idempotent delivery with `acks=all`.
public struct KafkaProducerConfiguration: Sendable, Hashable {
    public var client: KafkaConfiguration
    /// Broker-side de-duplication of retried batches (`enable.idempotence`).
    public var idempotent: Bool
    /// How long to wait for more messages to fill a batch (`linger.ms`): the
    /// throughput/latency trade-off. Zero by default: workers hand over a whole
    /// batch of records at once, which librdkafka batches per partition anyway,
    /// while every millisecond of lingering is paid on every hop of a
    /// conversation (measured: 5 ms cost a message round trip about 35 ms at
    /// 100 intents/s). `KAFKA_LINGER_MS` sets it per worker.
    public var linger: Duration
    /// Maximum bytes per partition batch (`batch.size`); nil keeps librdkafka's default.
    public var batchSizeBytes: Int?
    /// How long a message may take from `send` to acknowledged, retries
    /// included (`message.timeout.ms`); after that its delivery fails.
    public var deliveryTimeout: Duration
    /// `none`, `gzip`, `snappy`, `lz4` or `zstd`.
    public var compression: String
    /// Enables the transactional API. Correctness must not depend on it (see docs/kafka.md).
    public var transactionalID: String?
    /// The largest record (key, value and headers) this producer sends
    /// (`message.max.bytes`); a larger one fails with `MSG_SIZE_TOO_LARGE`
    /// before it leaves the process. librdkafka's default, just below Kafka's
    /// default topic limit (`max.message.bytes`, 1 MiB + 12). Events are far
    /// smaller (``defaultMaximumMessageBytes`` vs the events' own 256 KiB); the
    /// limit matters for dead letters, which copy whatever was consumed.
    public var maximumMessageBytes: Int = defaultMaximumMessageBytes

    public static let defaultMaximumMessageBytes = 1_000_000

    /// ``maximumMessageBytes``, or the `message.max.bytes` an operator set in
    /// the client properties (which win).
    public var effectiveMaximumMessageBytes: Int {
        librdkafkaProperties["message.max.bytes"].flatMap(Int.init) ?? maximumMessageBytes
    }

    public init(
        client: KafkaConfiguration,
        idempotent: Bool = true,
        linger: Duration = .zero,
        batchSizeBytes: Int? = nil,
        deliveryTimeout: Duration = .seconds(30),
        compression: String = "none",
        transactionalID: String? = nil
    ) {
        self.client = client
        self.idempotent = idempotent
        self.linger = linger
        self.batchSizeBytes = batchSizeBytes
        self.deliveryTimeout = deliveryTimeout
        self.compression = compression
        self.transactionalID = transactionalID
    }

    /// The effective librdkafka properties, e.g. for `intentctl kafka config`.
    public var librdkafkaProperties: [String: String] {
        var result: [String: String] = [
            "enable.idempotence": idempotent ? "true" : "false",
            "acks": "all",
            "linger.ms": String(linger.milliseconds),
            "message.timeout.ms": String(deliveryTimeout.milliseconds),
            "compression.codec": compression,
            // The Java client's partitioner, so every client (and KafkaPartitioner)
            // puts a user's events on the same partition.
            "partitioner": "murmur2_random",
            "message.max.bytes": String(maximumMessageBytes),
        ]
        result["batch.size"] = batchSizeBytes.map(String.init)
        result["transactional.id"] = transactionalID
        // Client properties (including the user's raw overrides) win, except the
        // consumer-only ones a shared environment sets for every client.
        return result.merging(client.nonConsumerProperties) { $1 }
    }
}
