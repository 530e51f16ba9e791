public import CoreMetrics
public import Kafka
import Synchronization

/// Turns librdkafka's periodic statistics into gauges an operator alerts on:
/// consumer lag per assigned partition (what KEDA scales on), whether each
/// broker is up and its round trip, and the client's queue; and tells
/// ``WorkerHealth`` whether any broker is reachable. Runs once per
/// `statistics.interval.ms`, never per record.
public final class KafkaStatisticsMetrics: Sendable {
    private let factory: any MetricsFactory
    private let health: WorkerHealth?
    /// Lag gauges of the partitions reported last time: a partition that moved
    /// to another member has its gauge removed rather than frozen at a stale value.
    private let lagGauges = Mutex<[KafkaTopicPartition: Gauge]>([:])

    public init(factory: any MetricsFactory, health: WorkerHealth?) {
        self.factory = factory
        self.health = health
    }

    public func record(_ statistics: KafkaStatistics) {
        health?.broker(up: statistics.anyBrokerUp)
        for broker in statistics.brokers where broker.nodeID >= 0 {
            let dimensions = [("broker", broker.name)]
            Gauge(label: "kafka_broker_up", dimensions: dimensions, factory: factory).record(broker.isUp ? 1 : 0)
            if let rtt = broker.averageRoundTrip {
                Gauge(label: "kafka_broker_rtt_seconds", dimensions: dimensions, factory: factory)
                    .record(Double(rtt.components.attoseconds) / 1e18 + Double(rtt.components.seconds))
            }
        }
        let client = [("client", statistics.clientName)]
        Gauge(label: "kafka_client_queued_messages", dimensions: client, factory: factory)
            .record(statistics.queuedMessages)
        Gauge(label: "kafka_client_transmitted_messages", dimensions: client, factory: factory)
            .record(statistics.transmittedMessages)
        Gauge(label: "kafka_client_received_messages", dimensions: client, factory: factory)
            .record(statistics.receivedMessages)
        var current: [KafkaTopicPartition: Gauge] = [:]
        for partition in statistics.partitions where partition.isAssigned {
            let key = KafkaTopicPartition(topic: partition.topic, partition: partition.partition)
            let gauge = Gauge(
                label: "kafka_consumer_lag",
                dimensions: [("topic", partition.topic), ("partition", String(partition.partition))], factory: factory)
            if let lag = partition.consumerLag { gauge.record(lag) }
            current[key] = gauge
        }
        let previous = lagGauges.withLock { gauges in
            defer { gauges = current }
            return gauges
        }
        for (key, gauge) in previous where current[key] == nil { gauge.destroy() }
    }
}
