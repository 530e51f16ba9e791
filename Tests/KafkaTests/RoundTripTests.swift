import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

@Suite("Produce and consume against a real local broker")
struct RoundTripTests {
    @Test("keys, values, headers, null values and timestamps survive a round trip")
    func roundTrip() async throws {
        try await withBroker { broker in
            let topic = uniqueName("round-trip")
            try await createTopic(broker, topic, partitions: 3)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let timestamp = Date(timeIntervalSince1970: 1_700_000_000.123)
            let sent = (0..<30).map { index in
                KafkaProducerMessage(
                    topic: topic, key: "user-\(index % 5)",
                    value: index == 7 ? nil : bytes("payload \(index) — 孙波 Щукина"),
                    headers: [
                        KafkaHeader(key: "event-type", string: "test.\(index)"),
                        KafkaHeader(key: "null-header", value: nil),
                        KafkaHeader(key: "empty-header", value: []),
                    ],
                    timestamp: timestamp)
            }
            let reports = try await producer.sendAll(sent)
            #expect(reports.count == sent.count)
            #expect(Set(reports.map(\.topic)) == [topic])

            let consumer = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("group")), logger: testLogger)
            try consumer.subscribe(topics: [topic])
            let received = try await consume(consumer, count: sent.count)

            // Per key, order is preserved; across keys, compare as sets.
            let byKey = Dictionary(grouping: received, by: { $0.keyString ?? "" })
            for (key, messages) in byKey {
                let expected = sent.filter { String(decoding: $0.key!, as: UTF8.self) == key }.map(\.value)
                #expect(messages.map(\.value) == expected, "order of key \(key)")
                #expect(Set(messages.map(\.partition)).count == 1, "one partition per key \(key)")
            }
            let tombstone = try #require(received.first { $0.header("event-type")?.stringValue == "test.7" })
            #expect(tombstone.value == nil)
            for message in received {
                #expect(message.header("null-header")?.value == nil)
                #expect(message.header("null-header") != nil)
                #expect(message.header("empty-header")?.value == [])
                let milliseconds = message.timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                #expect(milliseconds == 1_700_000_000_123)
            }
            // Delivery reports point at where the records really are.
            let reportedPositions = Set(reports.map { "\($0.partition)/\($0.offset)" })
            #expect(reportedPositions == Set(received.map { "\($0.partition)/\($0.offset)" }))
            await consumer.close()
            await producer.shutdown()
        }
    }

    @Test("batches larger than the local queue wait for space instead of failing")
    func backpressure() async throws {
        try await withBroker { broker in
            let topic = uniqueName("backpressure")
            try await createTopic(broker, topic)
            var configuration = producerConfiguration(broker)
            configuration.client.properties["queue.buffering.max.messages"] = "100"
            let producer = try KafkaProducer(configuration: configuration, logger: testLogger)
            let messages = (0..<1_000).map { KafkaProducerMessage(topic: topic, key: "k", value: bytes("\($0)")) }
            let reports = try await producer.sendAll(messages)
            #expect(reports.map(\.offset) == Array(0..<1_000).map(Int64.init))
            await producer.shutdown()
        }
    }
}
