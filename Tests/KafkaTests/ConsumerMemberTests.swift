import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

/// A group member on its own: where it resumes, closing it mid-join, pausing a partition.
/// Client behaviour with one member at a time, so at the heavy-test gate; the group's
/// rebalance among members is a process-level test (Tests/ProcessTests, ConsumerGroupTests).
@Suite("Consumer groups: one member at a time")
struct ConsumerMemberTests {
    @Test("a restarted consumer resumes at its committed offset")
    func resumeAtCommittedOffset() async throws {
        try await withBroker { broker in
            let topic = uniqueName("resume")
            let group = uniqueName("group")
            try await createTopic(broker, topic)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                (0..<100).map { KafkaProducerMessage(topic: topic, key: "k", value: bytes("\($0)")) })

            let first = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: group), logger: testLogger)
            try first.subscribe(topics: [topic])
            var processed: [KafkaConsumerMessage] = []
            while processed.count < 40 {
                processed += try await first.poll(maxMessages: 40 - processed.count, timeout: .seconds(1))
            }
            // Only the first 40 are finished; anything fetched beyond is not marked.
            try first.markProcessed(processed)
            try await first.commit()
            await first.close()

            let second = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: group), logger: testLogger)
            try second.subscribe(topics: [topic])
            let rest = try await consume(second, count: 60)
            #expect(rest.first?.offset == 40)
            #expect(rest.map(\.offset) == Array(40..<100).map(Int64.init))
            await second.close()
            await producer.shutdown()
        }
    }

    /// A pod that gets SIGTERM seconds after it started closes while its first join is
    /// under way. Before the fix, the local broker never rebalanced that group again and
    /// the replacement got no partitions (and read nothing) for as long as it ran.
    @Test("a consumer closed while still joining leaves the group usable: the next member gets the partitions")
    func closeWhileJoining() async throws {
        try await withBroker { broker in
            let topic = uniqueName("joining")
            let group = uniqueName("group")
            try await createTopic(broker, topic, partitions: 2)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                (0..<10).map { KafkaProducerMessage(topic: topic, key: "k\($0)", value: bytes("\($0)")) })

            let early = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: group), logger: testLogger)
            try early.subscribe(topics: [topic])
            // One poll starts the join (JoinGroup is sent from here); then close at once, mid-join.
            let polled = try await early.poll(maxMessages: 10, timeout: .milliseconds(50))
            #expect(polled.isEmpty, "the join takes seconds; nothing is read yet")
            #expect(try early.assignment().isEmpty)
            await early.close()

            let next = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: group), logger: testLogger)
            try next.subscribe(topics: [topic])
            // Well within the session timeout twice over; before the fix this never returned.
            let read = try await consume(next, count: 10, timeout: .seconds(30))
            #expect(read.count == 10, "nothing committed by the early member, so the next one reads everything")
            await next.close()
            await producer.shutdown()
        }
    }

    @Test("pause stops delivery from a partition until resume; seek rewinds")
    func pauseResumeSeek() async throws {
        try await withBroker { broker in
            let topic = uniqueName("pause")
            try await createTopic(broker, topic)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                (0..<10).map { KafkaProducerMessage(topic: topic, key: "k", value: bytes("\($0)")) })
            let consumer = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("group")), logger: testLogger)
            let partition = KafkaTopicPartition(topic: topic, partition: 0)
            try consumer.assign([KafkaPartitionOffset(topic: topic, partition: 0, offset: KafkaConsumer.beginning)])
            let firstFive = try await consume(consumer, count: 5, commit: false)
            #expect(firstFive.map(\.offset) == [0, 1, 2, 3, 4])

            try consumer.pause([partition])
            try await consumer.seek([KafkaPartitionOffset(topic: topic, partition: 0, offset: 8)])
            let whilePaused = try await consumer.poll(maxMessages: 10, timeout: .seconds(2))
            #expect(whilePaused.isEmpty, "a paused partition delivers nothing")
            try consumer.resume([partition])
            let afterSeek = try await consume(consumer, count: 2, commit: false)
            #expect(afterSeek.map(\.offset) == [8, 9])
            await consumer.close()
            await producer.shutdown()
        }
    }
}
