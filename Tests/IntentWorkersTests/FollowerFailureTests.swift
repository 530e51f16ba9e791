import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Synchronization
import Testing

/// A follower that dies leaves the worker's state behind its topic. Its task
/// failing does not cancel the worker's loop (the loop runs in the task
/// group's body), so the loop itself must notice and stop, instead of going
/// on deciding on stale state.
@Suite("A worker whose follower fails", .heavyTimeLimit(minutes: 2))
struct FollowerFailureTests {
    struct Poisoned: Error {}

    @Test("stops with the follower's error instead of deciding on state that no longer follows its topic")
    func stopsWhenFollowerFails() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("ff") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 1))
            }
            let decided = Mutex(0)
            let worker = StageWorker(
                name: "test worker",
                configuration: StageWorker.Configuration(
                    kafka: clientConfiguration(broker), topics: topics, groupID: uniqueName("group"),
                    input: topics.requested, keys: testStageKeys, sessionTimeout: .seconds(6)),
                logger: testLogger,
                followers: { _ in
                    // Every record of the followed topic kills the follower (its dead-lettering fails).
                    [
                        try TopicFollower(
                            configuration: clientConfiguration(broker), topic: topics.messages, logger: testLogger,
                            apply: { _ throws(EventDecodingError) in
                                throw EventDecodingError(.schemaInvalid, "unreadable")
                            },
                            reject: { _, _ in throw Poisoned() })
                    ]
                },
                process: { _ in
                    decided.withLock { $0 += 1 }
                    return .ignored("test")
                })
            let running = Task { try await worker.run() }
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)

            // Running: it decides an input record.
            _ = try await producer.send(KafkaProducerMessage(topic: topics.requested, key: "u1", value: bytes("one")))
            try await waitUntil("the first record is decided") { decided.withLock { $0 } == 1 }

            // The follower dies; the worker stops with its error.
            _ = try await producer.send(KafkaProducerMessage(topic: topics.messages, key: "u1", value: bytes("x")))
            let stopped = await stops(running, within: .seconds(60))
            #expect(stopped, "the worker went on running with a dead follower")
            await producer.shutdown()
        }
    }

    /// Whether `running` ends with the follower's error within `timeout`; if not,
    /// it is cancelled, so a failing test fails instead of hanging.
    private func stops(_ running: Task<Void, any Error>, within timeout: Duration) async -> Bool {
        await result(within: timeout, otherwise: false) {
            await withTaskCancellationHandler {
                do {
                    try await running.value
                    return false
                } catch {
                    return error is Poisoned
                }
            } onCancel: {
                running.cancel()
            }
        }
    }
}
