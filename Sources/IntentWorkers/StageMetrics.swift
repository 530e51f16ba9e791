import CoreMetrics
import Foundation
import IntentEvents
import Intents
import Kafka
import Payments
import Synchronization
import Telemetry

/// A stage worker's counters and histograms (Prometheus names), created once
/// per run against the worker's ``Telemetry``. The per-record calls are an
/// uncontended lock and an atomic add: nothing is formatted and nothing is
/// allocated once a (topic, type) pair has been seen.
final class StageMetrics: Sendable {
    let health: WorkerHealth
    private let factory: any MetricsFactory
    private let input: String
    private let consumed: Counter
    private let processing: CoreMetrics.Timer
    private let hopLatency: CoreMetrics.Timer
    private let produced = Mutex<[ProducedKey: Counter]>([:])

    private struct ProducedKey: Hashable {
        var destination: Destination
        var type: String
    }

    init(input: String, telemetry: Telemetry) {
        self.input = input
        health = telemetry.health
        factory = telemetry.metrics
        consumed = Counter(label: "intent_records_consumed_total", dimensions: [("topic", input)], factory: factory)
        // Deciding one polled batch (up to INTENT_MAX_BATCH records), without the broker.
        processing = CoreMetrics.Timer(label: "intent_batch_processing_seconds", dimensions: [], factory: factory)
        // From the input record's timestamp (its producer's clock) to this hop's outputs acknowledged.
        hopLatency = CoreMetrics.Timer(
            label: "intent_hop_latency_seconds", dimensions: [("topic", input)], factory: factory)
    }

    func consumed(_ count: Int, processingTime: Duration) {
        guard count > 0 else { return }
        consumed.increment(by: count)
        processing.recordNanoseconds(processingTime.nanoseconds)
    }

    func produced(_ destination: Destination, topic: String, type: String) {
        let key = ProducedKey(destination: destination, type: type)
        let counter = produced.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "intent_records_produced_total", dimensions: [("topic", topic), ("type", type)],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// Input records forwarded to their user's partition (partitioned state); rare by nature.
    func rerouted(_ count: Int) {
        Counter(label: "intent_records_rerouted_total", dimensions: [("topic", input)], factory: factory)
            .increment(by: count)
    }

    /// Rare by nature; the counter is looked up in the registry each time.
    func deadLettered(_ error: EventDecodingError, from topic: String) {
        Counter(
            label: "intent_records_dead_lettered_total",
            dimensions: [("topic", topic), ("reason", error.reason.rawValue)], factory: factory
        ).increment()
    }

    /// The records whose outputs the broker has just acknowledged.
    func finished(_ records: [KafkaConsumerMessage], at now: Date = Date()) {
        for record in records {
            guard let timestamp = record.timestamp else { continue }
            hopLatency.recordNanoseconds(Int64(max(0, now.timeIntervalSince(timestamp)) * 1e9))
        }
    }

    func rebalanced(_ event: KafkaRebalanceEvent) {
        let kind =
            switch event {
            case .assigned: "assigned"
            case .revoked: "revoked"
            case .lost: "lost"
            }
        Counter(label: "intent_rebalances_total", dimensions: [("kind", kind)], factory: factory).increment()
    }

    /// Records applied per followed topic: the state this instance holds.
    func stateSize(_ followers: [TopicFollower]) {
        for follower in followers {
            Gauge(label: "intent_state_records", dimensions: [("topic", follower.topic)], factory: factory)
                .record(follower.appliedCount)
        }
    }

    /// Money moved by this worker's decisions, in the currency's units.
    func moneyMoved(_ movements: MoneyMovements) {
        for (key, total) in movements.totals {
            let dimensions = [("outcome", key.kind.rawValue), ("currency", key.currency)]
            Counter(label: "intent_payments_total", dimensions: dimensions, factory: factory).increment(by: total.count)
            FloatingPointCounter(label: "intent_payment_amount_total", dimensions: dimensions, factory: factory)
                .increment(by: Double(total.micros) / 1_000_000)  // Money keeps micro-units (scale 6).
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
