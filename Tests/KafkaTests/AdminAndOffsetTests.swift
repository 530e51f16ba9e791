import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

@Suite("Admin, offsets and transactions")
struct AdminAndOffsetTests {
    @Test("create (compacted, partitioned), describe, list and delete topics")
    func topicLifecycle() async throws {
        try await withBroker { broker in
            let admin = try KafkaAdminClient(configuration: clientConfiguration(broker), logger: testLogger)
            let name = uniqueName("contacts")
            try await admin.createTopic(.compacted(name: name, partitions: 3))
            let description = try await admin.describeTopic(name)
            #expect(description.partitions.map(\.id).sorted() == [0, 1, 2])
            #expect(try await admin.topicConfiguration(name)["cleanup.policy"] == "compact")
            #expect(try await admin.listTopics().contains(name))

            try await admin.createTopic(.compacted(name: name, partitions: 3))  // exists: fine
            await #expect {
                try await admin.createTopic(KafkaTopicSpecification(name: name), ifNotExists: false)
            } throws: { ($0 as? KafkaError)?.code == .topicAlreadyExists }

            try await admin.deleteTopics([name])
            #expect(try await !admin.listTopics().contains(name))
            try await admin.deleteTopics([name])  // missing: fine with ifExists
            await admin.close()
            await #expect(throws: KafkaError.self, "a closed client refuses work") { try await admin.listTopics() }
        }
    }

    @Test("describing or looking up a topic that does not exist fails and creates nothing")
    func readOnlyCallsCreateNothing() async throws {
        try await withBroker { broker in
            let name = uniqueName("ghost")
            _ = try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                admin in
                await #expect(throws: KafkaError.self) { try await admin.describeTopic(name) }
            }
            try await KafkaOffsetLookup.with(configuration: clientConfiguration(broker), logger: testLogger) {
                lookup in
                _ = try? await lookup.partitions(of: name)
            }
            let topics = try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger)
            {
                try await $0.listTopics()
            }
            #expect(!topics.contains(name), "a read-only call created \(name)")
        }
    }

    @Test("an existing topic that differs from its specification is reported, one difference a line")
    func drift() async throws {
        try await withBroker { broker in
            let name = uniqueName("drift")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) { admin in
                try await admin.createTopic(KafkaTopicSpecification(name: name, partitions: 2))
                let description = try await admin.describeTopic(name)
                let configuration = try await admin.topicConfiguration(name)
                #expect(
                    KafkaTopicSpecification(name: name, partitions: 2).drift(
                        from: description, configuration: configuration) == [])
                let wanted = KafkaTopicSpecification.compacted(name: name, partitions: 3)
                #expect(
                    wanted.drift(from: description, configuration: configuration) == [
                        "\(name) has 2 partitions, 3 wanted",
                        "\(name) has cleanup.policy=\(configuration["cleanup.policy"] ?? "(unset)"), compact wanted",
                    ])
            }
        }
    }

    @Test("offsets for a timestamp are right even where the broker's time index is not")
    func offsetsForTimestamp() async throws {
        try await withBroker { broker in
            let topic = uniqueName("timeline")
            try await createTopic(broker, topic)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let base = Date(timeIntervalSince1970: 1_800_000_000)
            // Three batches, ten records each, one minute apart.
            for minute in 0..<3 {
                try await producer.sendAll(
                    (0..<10).map { index in
                        KafkaProducerMessage(
                            topic: topic, key: "k", value: bytes("\(minute)-\(index)"),
                            timestamp: base.addingTimeInterval(Double(minute * 60) + Double(index) / 100))
                    })
            }
            let lookup = try KafkaOffsetLookup(configuration: clientConfiguration(broker), logger: testLogger)
            func offset(at time: Date) async throws -> Int64 {
                try #require(try await lookup.offsets(topic: topic, at: time).first).offset.offset
            }
            #expect(try await offset(at: base.addingTimeInterval(-1)) == 0)
            #expect(try await offset(at: base.addingTimeInterval(60)) == 10)
            #expect(try await offset(at: base.addingTimeInterval(60.05)) == 15)
            #expect(try await offset(at: base.addingTimeInterval(120)) == 20)
            #expect(try await offset(at: base.addingTimeInterval(3600)) == 30, "after the last record: the end")

            let watermarks = try #require(
                try await lookup.watermarks([KafkaTopicPartition(topic: topic, partition: 0)]).values.first)
            #expect(watermarks.high == 30)
            #expect(watermarks.low == 0)
            await lookup.close()
            await producer.shutdown()
            let refused = await producer.send(batch: [KafkaProducerMessage(topic: topic, key: "k", value: [])])
            #expect(refused.failures.map(\.code) == [.destroyed], "a shut-down producer refuses to send")
        }
    }

    @Test("the transactional API commits records and consumer offsets")
    func transactions() async throws {
        try await withBroker { broker in
            let input = uniqueName("tx-in")
            let output = uniqueName("tx-out")
            try await createTopic(broker, input)
            try await createTopic(broker, output)
            let plain = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await plain.send(KafkaProducerMessage(topic: input, key: "k", value: bytes("request")))

            let group = uniqueName("group")
            let consumer = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: group), logger: testLogger)
            try consumer.subscribe(topics: [input])
            let request = try #require(try await consume(consumer, count: 1, commit: false).first)

            var configuration = producerConfiguration(broker)
            configuration.transactionalID = uniqueName("tx")
            let transactional = try KafkaProducer(configuration: configuration, logger: testLogger)
            try await transactional.initTransactions()
            try await transactional.beginTransaction()
            try await transactional.send(KafkaProducerMessage(topic: output, key: "k", value: bytes("response")))
            try await transactional.sendOffsetsToTransaction([request.nextOffset], consumer: consumer)
            try await transactional.commitTransaction()

            let committed = try await consumer.committed([request.topicPartition])
            #expect(committed[request.topicPartition] == 1)
            let reader = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("group")), logger: testLogger)
            try reader.subscribe(topics: [output])
            #expect(try await consume(reader, count: 1).first?.value == bytes("response"))
            await reader.close()
            await consumer.close()
            await transactional.shutdown()
            await plain.shutdown()
        }
    }
}
