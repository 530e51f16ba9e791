import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Synchronization
import Testing

/// Were records the broker acknowledged (idempotent producer, `acks=all`)
/// still there after the durable local broker was killed and restarted? Each
/// run produces continuously, stops the broker (SIGKILL on even runs, SIGTERM
/// on odd ones) while records are in flight, restarts it on the same port and
/// storage, keeps producing, then reads every partition back and compares
/// with the delivery reports: which acknowledged records are missing, which
/// acknowledged offsets now hold another record, and which records are there
/// twice. Opt-in (`INTENT_DURABLE_RESTART_RUNS=20`): it takes minutes.
@Suite("Acknowledged records across durable broker restarts")
struct DurableRestartInvestigation {
    static let runs = Int(ProcessInfo.processInfo.environment["INTENT_DURABLE_RESTART_RUNS"] ?? "") ?? 0

    struct Outcome: CustomStringConvertible {
        var run: Int
        var signal: String
        var acknowledged = 0
        var failed: [String: Int] = [:]
        var ackedAtStop = 0
        var readBack = 0
        var missing: [String] = []
        var displaced: [String] = []
        var duplicated = 0
        var anomaly: String?

        var description: String {
            "run \(run) (\(signal)): acknowledged \(acknowledged) (\(ackedAtStop) before the stop), failed \(failed), "
                + "read back \(readBack), acknowledged but missing \(missing.count) \(missing.prefix(5)), "
                + "acknowledged offset holding another record \(displaced.count) \(displaced.prefix(5)), duplicated \(duplicated)"
                + (anomaly.map { "; read-back anomaly: \($0)" } ?? "")
        }
    }

    @Test(.enabled(if: runs > 0), .heavyTimeLimit(minutes: 60))
    func acknowledgedRecordsSurvive() async throws {
        var outcomes: [Outcome] = []
        for run in 0..<Self.runs {
            let outcome = try await Self.run(run, kill: run.isMultiple(of: 2))
            print("durable restart \(outcome)")
            outcomes.append(outcome)
        }
        let lost = outcomes.map { $0.missing.count + $0.displaced.count }
        print("durable restart summary: \(outcomes.count) runs, acknowledged-but-lost per run \(lost)")
        #expect(lost.allSatisfy { $0 == 0 })
    }

    static func run(_ run: Int, kill: Bool) async throws -> Outcome {
        try await withBroker(LocalBroker.Options(durable: true)) { broker in
            var outcome = Outcome(run: run, signal: kill ? "SIGKILL" : "SIGTERM")
            let topic = uniqueName("acked")
            try await createTopic(broker, topic, partitions: 3)
            let producer = try KafkaProducer(
                configuration: producerConfiguration(broker, deliveryTimeout: .seconds(60)), logger: testLogger)
            let acknowledged = Mutex<[String: KafkaDeliveryReport]>([:])
            let failed = Mutex<[String: Int]>([:])
            let restarted = Mutex(false)
            let stopAt = Int.random(in: 1500...6000)
            let (reached, reachedSink) = AsyncStream<Void>.makeStream()
            let load = Task {
                var sequence = 0
                var batchesAfterRestart = 0
                // One batch of 200 at a time; the stop comes as the next batch is sent, so it is in flight.
                while batchesAfterRestart < 5 {
                    let numbers = sequence..<sequence + 200
                    sequence += numbers.count
                    let results = await producer.send(
                        batch: numbers.map {
                            KafkaProducerMessage(topic: topic, key: "key-\($0 % 17)", value: bytes("r\(run)-\($0)"))
                        })
                    for (number, result) in zip(numbers, results) {
                        switch result {
                        case .success(let report): acknowledged.withLock { $0["r\(run)-\(number)"] = report }
                        case .failure(let error): failed.withLock { $0[error.name, default: 0] += 1 }
                        }
                    }
                    if acknowledged.withLock({ $0.count }) >= stopAt { reachedSink.yield() }
                    if restarted.withLock({ $0 }) { batchesAfterRestart += 1 }
                }
                reachedSink.finish()
            }
            // Stop the broker once enough is acknowledged, with the next batch in flight.
            for await _ in reached { break }
            outcome.ackedAtStop = acknowledged.withLock { $0.count }
            if kill { await broker.kill() } else { await broker.processes.first?.stop() }
            try await broker.restart()
            restarted.withLock { $0 = true }
            await load.value
            await producer.shutdown()

            let (stored, anomaly) = try await readAll(topic, broker)
            outcome.anomaly = anomaly
            let reports = acknowledged.withLock { $0 }
            outcome.acknowledged = reports.count
            outcome.failed = failed.withLock { $0 }
            outcome.readBack = stored.count
            var positions: [String: [KafkaTopicPartition: Set<Int64>]] = [:]
            var byOffset: [KafkaTopicPartition: [Int64: String]] = [:]
            for (value, partition, offset) in stored {
                positions[value, default: [:]][partition, default: []].insert(offset)
                byOffset[partition, default: [:]][offset] = value
            }
            outcome.duplicated = positions.values.map { $0.values.map(\.count).reduce(0, +) - 1 }.reduce(0, +)
            for (value, report) in reports.sorted(by: { $0.key < $1.key }) {
                if positions[value] == nil { outcome.missing.append("\(value)@\(report.partition):\(report.offset)") }
                let partition = KafkaTopicPartition(topic: topic, partition: report.partition)
                if let holder = byOffset[partition]?[report.offset], holder != value {
                    outcome.displaced.append("\(value)@\(report.partition):\(report.offset) holds \(holder)")
                }
            }
            return outcome
        }
    }

    /// Every record of the topic (value, partition, offset): up to the verified
    /// ends, or, when the broker cannot serve up to the end it reports (seen
    /// after a restart), until nothing new arrives for 5 s; `anomaly` says which.
    static func readAll(
        _ topic: String, _ broker: LocalBroker
    ) async throws -> (records: [(String, KafkaTopicPartition, Int64)], anomaly: String?) {
        let lookup = try KafkaOffsetLookup(configuration: clientConfiguration(broker), logger: testLogger)
        let partitions = try await lookup.partitions(of: topic)
        var ends: [KafkaTopicPartition: Int64] = [:]
        var anomaly: String?
        do {
            ends = try await lookup.watermarks(partitions).filter { $0.value.high > $0.value.low }.mapValues(\.high)
        } catch {
            anomaly = "verified end offsets unavailable (\(error)); read until idle"
        }
        await lookup.close()
        let consumer = try KafkaConsumer(
            configuration: consumerConfiguration(broker, group: uniqueName("readback")), logger: testLogger)
        try consumer.assign(
            partitions.map {
                KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
            })
        var records: [(String, KafkaTopicPartition, Int64)] = []
        var remaining = ends
        let deadline = ContinuousClock.now + .seconds(120)
        var lastRecord = ContinuousClock.now
        while ContinuousClock.now < deadline {
            if anomaly == nil, remaining.isEmpty { break }
            if anomaly != nil, ContinuousClock.now - lastRecord > .seconds(5) { break }
            let batch = try await consumer.poll(maxMessages: 5000, timeout: .milliseconds(500))
            if !batch.isEmpty { lastRecord = ContinuousClock.now }
            for message in batch {
                records.append(
                    (String(decoding: message.value ?? [], as: UTF8.self), message.topicPartition, message.offset))
                if let end = remaining[message.topicPartition], message.offset + 1 >= end {
                    remaining[message.topicPartition] = nil
                }
            }
        }
        await consumer.close()
        if anomaly == nil, !remaining.isEmpty { anomaly = "could not read \(remaining) to the end" }
        return (records, anomaly)
    }
}
