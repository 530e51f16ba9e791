import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import PipelineTopics
import Synchronization

/// Reads everything the workers publish during the throughput phases and
/// keeps, per output stream, the broker timestamps of its records (set when
/// the worker produced them), so a worker's rate is measured from its first
/// output to its last, not from when this reader happened to poll.
final class OutputTally: Sendable {
    enum Stream: String, Sendable, CaseIterable {
        case resolved, prompt, confirmationRequest, confirmed, ledger, response, message, deadLetter
    }

    private struct State {
        var times: [Stream: [Double]] = [:]
        var confirmationRequests: [EventEnvelope] = []
        var failure: String?
    }

    private let consumer: KafkaConsumer
    private let topics: PipelineTopics
    private let state = Mutex(State())
    private let stopped = Atomic(false)

    init(client: KafkaConfiguration, topics: PipelineTopics, logger: Logger) throws {
        self.topics = topics
        consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: client, groupID: "bench-tally-\(UUID())", sessionTimeout: .seconds(6)),
            logger: logger)
        try consumer.subscribe(topics: [
            topics.resolved, topics.prompts, topics.confirmed, topics.ledger, topics.responses, topics.messages,
            topics.deadLetter,
        ])
    }

    /// Polls until `close()`.
    func run() async {
        while !stopped.load(ordering: .relaxed) {
            do {
                let batch = try await consumer.poll(maxMessages: 2000, timeout: .milliseconds(50))
                var additions: [Stream: [Double]] = [:]
                var requests: [EventEnvelope] = []
                for message in batch {
                    let time = message.timestamp?.timeIntervalSince1970 ?? Date().timeIntervalSince1970
                    let stream: Stream
                    switch message.topic {
                    case topics.resolved: stream = .resolved
                    case topics.confirmed: stream = .confirmed
                    case topics.ledger: stream = .ledger
                    case topics.responses: stream = .response
                    case topics.messages: stream = .message
                    case topics.deadLetter: stream = .deadLetter
                    default:
                        let event = try EventEnvelope.decode(message.value ?? [])
                        if event.type == ConfirmationRequest.type {
                            stream = .confirmationRequest
                            requests.append(event)
                        } else {
                            stream = .prompt
                        }
                    }
                    additions[stream, default: []].append(time)
                }
                state.withLock { state in
                    for (stream, times) in additions { state.times[stream, default: []] += times }
                    state.confirmationRequests += requests
                }
            } catch {
                state.withLock { $0.failure = "\(error)" }
                return
            }
        }
    }

    func close() async {
        stopped.store(true, ordering: .relaxed)
        await consumer.close()
    }

    /// Records per stream so far: a phase's baseline.
    func counts() -> [Stream: Int] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: Stream.allCases.map { ($0, state.times[$0]?.count ?? 0) })
        }
    }

    /// Records of these streams since `baseline`.
    func added(_ streams: [Stream], since baseline: [Stream: Int]) throws -> Int {
        try state.withLock { state in
            if let failure = state.failure { throw BenchFailure("output reader: \(failure)") }
            return streams.reduce(0) { $0 + (state.times[$1]?.count ?? 0) - (baseline[$1] ?? 0) }
        }
    }

    /// The earliest timestamp among the records of `streams` since `baseline`, and the latest.
    func span(first: [Stream], last: [Stream], since baseline: [Stream: Int]) -> (first: Double, last: Double) {
        state.withLock { state in
            func new(_ stream: Stream) -> ArraySlice<Double> {
                (state.times[stream] ?? []).dropFirst(baseline[stream] ?? 0)
            }
            let start = first.compactMap { new($0).min() }.min() ?? 0
            let end = last.compactMap { new($0).max() }.max() ?? 0
            return (start, end)
        }
    }

    func confirmationRequests() -> [EventEnvelope] { state.withLock { $0.confirmationRequests } }
}
