import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import PipelineTopics
import Synchronization

/// The voice service's side of the latency runs: publishes intents at a fixed
/// rate, answers every confirmation request as soon as it is asked, and
/// times each intent from its publication to its final response.
final class LatencyProbe: Sendable {
    struct Result {
        var p50: Double, p99: Double, p999: Double, max: Double
        var achievedPerSecond: Double
        var completed: Int, published: Int
        /// The broker's acknowledgement time of the probe's own sends (enqueue to
        /// delivery report), p50 and p99: what one publishing round costs at this load.
        var acknowledgementP50: Double, acknowledgementP99: Double
    }

    private struct State {
        var published: [String: ContinuousClock.Instant] = [:]
        var finished: [String: ContinuousClock.Instant] = [:]
        var answered: Set<String> = []
        var failure: String?
    }

    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let load: PipelineLoad
    private let topics: PipelineTopics
    private let state = Mutex(State())
    private let stopped = Atomic(false)

    init(client: KafkaConfiguration, topics: PipelineTopics, load: PipelineLoad, logger: Logger) throws {
        self.topics = topics
        self.load = load
        // A voice service waiting for an answer does not let the fetch idle: 1 ms, not the default 500.
        var reader = client
        reader.properties["fetch.wait.max.ms"] =
            ProcessInfo.processInfo.environment["INTENT_BENCH_PROBE_FETCH_WAIT_MS"] ?? "1"
        consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: reader, groupID: "bench-voice-\(UUID())", offsetReset: .latest, sessionTimeout: .seconds(6)),
            logger: logger)
        try consumer.subscribe(topics: [topics.prompts, topics.responses])
        producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
    }

    /// Answers and times until `close()`.
    func run() async {
        while !stopped.load(ordering: .relaxed) {
            do {
                let batch = try await consumer.poll(maxMessages: 1000, timeout: .milliseconds(20))
                let now = ContinuousClock.now
                var replies: [KafkaProducerMessage] = []
                for message in batch {
                    let event = try EventEnvelope.decode(message.value ?? [])
                    guard let intentID = event.intentID else { continue }
                    if event.type == ConfirmationRequest.type {
                        let first = state.withLock { $0.answered.insert(event.id).inserted }
                        if first { replies.append(try load.answer(to: event, topics: topics)) }
                    } else if event.type == IntentResponse.type,
                        try event.decodeData(as: IntentResponse.self).code.isFinal
                    {
                        state.withLock { state in
                            if state.finished[intentID] == nil { state.finished[intentID] = now }
                        }
                    }
                }
                if !replies.isEmpty {
                    let results = await producer.send(batch: replies)
                    if !results.allSucceeded { throw BenchFailure("\(results.failureCount) answers not delivered") }
                }
            } catch {
                state.withLock { $0.failure = "\(error)" }
                return
            }
        }
    }

    /// Runs `body` with the reader's partitions paused, so no fetches: what idle workers cost
    /// the broker is measured without the probe's own, which asks every 1 ms
    /// (docs/profile-2026-11-27.md, session 10).
    func withReaderPaused<Result>(_ body: () async throws -> Result) async throws -> Result {
        let partitions = try consumer.assignment()
        try consumer.pause(partitions)
        do {
            let result = try await body()
            try consumer.resume(partitions)
            return result
        } catch {
            try? consumer.resume(partitions)
            throw error
        }
    }

    func close() async {
        stopped.store(true, ordering: .relaxed)
        await consumer.close()
        await producer.shutdown()
    }

    /// Publishes `rate` intents a second for `seconds`, then waits (up to `drain`) for their final responses.
    func measure(label: String, payment: Bool, rate: Int, seconds: Double, drain: Duration) async throws -> Result {
        let total = max(1, Int(Double(rate) * seconds))
        let started = ContinuousClock.now
        var sent = 0
        var sends: [Task<(KafkaDeliveryResults, Double), Never>] = []
        while sent < total {
            let due = min(total, Int(Double(rate) * (ContinuousClock.now - started).seconds) + 1)
            if due > sent {
                let records = (sent..<due).map {
                    load.request("\(label)-\($0)", index: $0, payment: payment, topics: topics)
                }
                let now = ContinuousClock.now
                state.withLock { state in
                    for index in sent..<due { state.published["\(label)-\(index)"] = now }
                }
                let producer = self.producer
                sends.append(
                    Task {
                        let enqueued = ContinuousClock.now
                        let results = await producer.send(batch: records)
                        return (results, (ContinuousClock.now - enqueued).seconds * 1000)
                    })
                sent = due
            }
            // Pacing the offered load (1 ms ticks), not synchronization.
            try await Task.sleep(for: .milliseconds(1))
        }
        var acknowledgements: [Double] = []
        for send in sends {
            let (results, milliseconds) = await send.value
            if !results.allSucceeded { throw BenchFailure("latency run \(label): requests not delivered") }
            acknowledgements.append(milliseconds)
        }
        acknowledgements.sort()
        let ids = (0..<total).map { "\(label)-\($0)" }
        let deadline = ContinuousClock.now + drain
        while ContinuousClock.now < deadline {
            let (done, failure) = state.withLock { state in
                (ids.allSatisfy { state.finished[$0] != nil }, state.failure)
            }
            if let failure { throw BenchFailure("latency probe: \(failure)") }
            if done { break }
            try await Task.sleep(for: .milliseconds(20))  // waiting on the probe's reader task
        }
        return state.withLock { state in
            var latencies: [Double] = []
            var first: ContinuousClock.Instant?
            var last = started
            for id in ids {
                guard let end = state.finished[id], let begin = state.published[id] else { continue }
                latencies.append((end - begin).seconds * 1000)
                first = min(first ?? end, end)
                last = max(last, end)
            }
            latencies.sort()
            func percentile(_ p: Double) -> Double { Self.percentile(latencies, p) }
            // The rate final responses came out at, first to last: the offered rate when the pipeline keeps up.
            let elapsed = (last - (first ?? last)).seconds
            return Result(
                p50: percentile(0.5), p99: percentile(0.99), p999: percentile(0.999), max: latencies.last ?? 0,
                achievedPerSecond: elapsed > 0 ? Double(latencies.count - 1) / elapsed : 0,
                completed: latencies.count, published: total,
                acknowledgementP50: Self.percentile(acknowledgements, 0.5),
                acknowledgementP99: Self.percentile(acknowledgements, 0.99))
        }
    }

    /// The value at fraction `p` of sorted `values`; 0 when empty.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        values.isEmpty ? 0 : values[min(values.count - 1, Int(Double(values.count) * p))]
    }
}
