import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Synchronization
import Testing

@testable import IntentWorkers

/// Workers hold the state of the input partitions they own, not of every
/// user (issue 11): the follower reads only owned partitions and forgets lost
/// ones, state topics must be co-partitioned with the input, and an input
/// record on another partition than its user's is forwarded to its owner.
@Suite("Partitioned worker state", .heavyTimeLimit(minutes: 5))
struct PartitionedStateTests {
    @Test("a partitioned follower applies only the partitions it owns, and forgets one it loses")
    func followsOwnedPartitions() async throws {
        try await withBroker { broker in
            let topic = uniqueName("state")
            try await createTopic(broker, topic, partitions: 3)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            func send(_ partition: Int32, _ values: [String]) async throws {
                _ = try await producer.sendAll(
                    values.map {
                        KafkaProducerMessage(
                            topic: topic, partition: partition, key: Array("k".utf8), value: Array($0.utf8))
                    })
            }
            try await send(0, ["a0", "a1"])
            try await send(1, ["b0"])
            try await send(2, ["c0", "c1", "c2"])
            let applied = Mutex<[Int32: [String]]>([:])
            let forgotten = Mutex<[Int32]>([])
            let follower = try TopicFollower(
                configuration: clientConfiguration(broker), topic: topic, logger: testLogger,
                apply: { message in
                    applied.withLock {
                        $0[message.partition, default: []].append(String(decoding: message.value ?? [], as: UTF8.self))
                    }
                }, reject: { _, _ in },
                forget: { partition in
                    forgotten.withLock { $0.append(partition) }
                    applied.withLock { $0[partition] = nil }
                })
            let following = Task { try await follower.follow() }

            try await follower.caughtUp(owning: [0])
            #expect(applied.withLock { $0 } == [0: ["a0", "a1"]])

            try await follower.caughtUp(owning: [1, 2])
            #expect(forgotten.withLock { $0 } == [0])
            #expect(applied.withLock { $0 } == [1: ["b0"], 2: ["c0", "c1", "c2"]])

            // Written to a partition not owned: not read.
            try await send(0, ["a2"])
            try await send(2, ["c3"])
            try await follower.caughtUp()
            #expect(applied.withLock { $0 } == [1: ["b0"], 2: ["c0", "c1", "c2", "c3"]])

            // Regained: read again from its beginning; the kept partition goes on where it was.
            try await follower.caughtUp(owning: [0, 1])
            #expect(forgotten.withLock { $0 } == [0, 2])
            #expect(applied.withLock { $0 } == [0: ["a0", "a1", "a2"], 1: ["b0"]])
            #expect(follower.appliedCount == 2 + 1 + 4 + 3, "every record read once per ownership")

            following.cancel()
            _ = try? await following.value
            await follower.close()
            await producer.shutdown()
        }
    }

    @Test("a state record copied onto another partition than its key's is refused there, not applied")
    func refusesRecordsOffTheirKeysPartition() async throws {
        // SECURITY.md, attack 55: any producer picks the partition, so a genuine record of one
        // user's (a payment request's creation, a hold) could be applied to another's state.
        try await withBroker { broker in
            let topic = uniqueName("state")
            try await createTopic(broker, topic, partitions: 3)
            let key = Array("alice".utf8)
            let home = KafkaPartitioner.partition(forKey: key, partitions: 3)
            let elsewhere = (home + 1) % 3
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            _ = try await producer.sendAll([
                KafkaProducerMessage(topic: topic, partition: home, key: key, value: Array("genuine".utf8)),
                KafkaProducerMessage(topic: topic, partition: elsewhere, key: key, value: Array("copy".utf8)),
            ])
            await producer.shutdown()
            let applied = Mutex<[Int32: [String]]>([:])
            let rejected = Mutex<[(Int32, EventDecodingError)]>([])
            let follower = try TopicFollower(
                configuration: clientConfiguration(broker), topic: topic, logger: testLogger,
                apply: { message in
                    applied.withLock {
                        $0[message.partition, default: []].append(String(decoding: message.value ?? [], as: UTF8.self))
                    }
                }, reject: { message, error in rejected.withLock { $0.append((message.partition, error)) } },
                forget: { _ in })
            follower.placesKeys(onPartitions: 3)
            let following = Task { try await follower.follow() }
            try await follower.caughtUp(owning: [0, 1, 2])
            #expect(applied.withLock { $0 } == [home: ["genuine"]])
            let refusals = rejected.withLock { $0 }
            #expect(refusals.map(\.0) == [elsewhere])
            #expect(refusals.first?.1.reason == .wrongUser)
            #expect(refusals.first?.1.field == "key")
            following.cancel()
            _ = try? await following.value
            await follower.close()
        }
    }

    @Test("a state topic with another partition count than the input stops the worker, naming both")
    func refusesStateNotCoPartitioned() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("mismatch") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) { admin in
                for specification in topics.specifications(partitions: 2) where specification.name != topics.contacts {
                    try await admin.createTopic(specification)
                }
                try await admin.createTopic(KafkaTopicSpecification.compacted(name: topics.contacts, partitions: 3))
            }
            let worker = ResolveWorker(
                configuration: ResolveWorker.Configuration(
                    kafka: clientConfiguration(broker), topics: topics, groupID: uniqueName("resolve"),
                    keys: testStageKeys),
                logger: testLogger)
            let error = await #expect(throws: StatePartitioningError.self) { try await worker.run() }
            let message = try #require(error).description
            #expect(message.contains("\(topics.requested) has 2 partitions"))
            #expect(message.contains("\(topics.contacts) has 3"))
        }
    }

    @Test("a request on another partition than its user's is forwarded to the member holding the user's contacts")
    func forwardsMisplacedInput() async throws {
        try await withPipeline { pipeline in
            try await pipeline.publishContacts([Contact(id: "sunbo", displayName: "孙波")], user: "u1")
            try await pipeline.startWorker()
            let home = KafkaPartitioner.partition(forKey: "u1", partitions: PipelineHarness.partitions)
            let elsewhere = (home + 1) % Int32(PipelineHarness.partitions)
            var record = KafkaProducerMessage(
                topic: pipeline.topics.requested,
                event: pipeline.requestEvent(
                    "misplaced", turn: 1,
                    .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("5", "CNY")))))
            record.partition = elsewhere
            let stored = try await pipeline.send(record)
            #expect(stored.partition == elsewhere)

            // Decided where u1's contacts are: the payee resolves (on the wrong partition it could not).
            let output = try await pipeline.output(for: "misplaced", turn: 1)
            #expect(output.type == IntentResolutionReport.resolvedType)
            #expect(try payeeID(output) == "sunbo")
            let copies = pipeline.outputs(for: "misplaced")
            #expect(copies.count == 1, "decided once")
        }
    }
}
