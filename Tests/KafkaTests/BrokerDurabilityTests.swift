import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

/// The local broker's own durability: Tansu on a local S3 server (moto) killed
/// and restarted under the clients. What these tests measure is mostly that
/// broker and its storage, not this project's code, and a parallel run on a
/// loaded 2-core machine made them fail (0 of N records within 60 s) while they
/// pass alone (issue 29). So they are not in the default suite: `make test-broker`
/// runs them, one at a time (`INTENT_BROKER_DURABILITY_TESTS=1`). How the
/// pipeline rides out a broker outage stays in the default suite
/// (`BrokerOutageTests`, `BrokerFailureTests`).
@Suite(
    "The local broker's durability across restarts", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["INTENT_BROKER_DURABILITY_TESTS"] == "1",
        "opt-in: make test-broker"))
struct BrokerDurabilityTests {
    /// Durable storage, as a real broker keeps its log and producer state
    /// across a restart (with memory storage Tansu forgets the idempotent
    /// producer's id and rejects it with UNKNOWN_PRODUCER_ID forever).
    @Test("with the broker killed, clients report errors within bounded time and recover when it returns")
    func killAndRecover() async throws {
        try await withBroker(LocalBroker.Options(durable: true)) { broker in
            let topic = uniqueName("failure")
            try await createTopic(broker, topic)
            let producer = try KafkaProducer(
                configuration: producerConfiguration(broker, deliveryTimeout: .seconds(4)), logger: testLogger)
            let consumer = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("group")), logger: testLogger)
            try consumer.subscribe(topics: [topic])
            try await producer.send(KafkaProducerMessage(topic: topic, key: "k", value: bytes("before")))
            #expect(try await consume(consumer, count: 1).map(\.value) == [bytes("before")])

            await broker.kill()

            // A send fails once its delivery timeout passes, with a connectivity error.
            let started = ContinuousClock.now
            let failed = await producer.send(batch: [KafkaProducerMessage(topic: topic, key: "k", value: bytes("lost"))]
            )
            let elapsed = ContinuousClock.now - started
            let error = try #require(
                failed.first.flatMap { result -> KafkaError? in
                    if case .failure(let error) = result { return error }
                    return nil
                })
            #expect(error.code.isConnectivity, "\(error)")
            #expect(elapsed < .seconds(15))
            // The background error streams told us too.
            let reported = await first(producer.errors, within: .seconds(10)) { $0.code.isConnectivity }
            #expect(reported != nil)
            // Admin calls fail within their request timeout instead of hanging.
            let admin = try KafkaAdminClient(configuration: clientConfiguration(broker), logger: testLogger)
            let adminStarted = ContinuousClock.now
            await #expect(throws: KafkaError.self) { try await admin.checkConnectivity() }
            #expect(ContinuousClock.now - adminStarted < .seconds(20))

            // The broker returns; the same clients reconnect and carry on. As a
            // worker does, a failed send is retried: Tansu fences the producer
            // id after librdkafka's epoch bump for the timed-out record, and
            // the producer replaces its fatally failed instance.
            try await broker.restart()
            try await producer.checkConnectivity()
            var attempts: [Result<KafkaDeliveryReport, KafkaError>] = []
            while attempts.count < 3, attempts.last.map({ if case .success = $0 { false } else { true } }) ?? true {
                attempts += await producer.send(batch: [
                    KafkaProducerMessage(topic: topic, key: "k", value: bytes("after"))
                ])
            }
            let report = try #require(try attempts.last?.get())
            #expect(report.topic == topic)
            #expect(try await consume(consumer, count: 1).map(\.value) == [bytes("after")])
            await admin.close()
            await consumer.close()
            await producer.shutdown()
        }
    }

    @Test("in durable mode a broker restart loses nothing")
    func durableRestart() async throws {
        try await withBroker(LocalBroker.Options(durable: true)) { broker in
            let topic = uniqueName("durable")
            try await createTopic(broker, topic, partitions: 2)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let values = (0..<500).map { "record \($0)" }
            try await producer.sendAll(
                values.map { KafkaProducerMessage(topic: topic, key: "user-\($0.count % 7)", value: bytes($0)) })
            await producer.shutdown()

            await broker.kill()
            try await broker.restart()

            let consumer = try KafkaConsumer(
                configuration: consumerConfiguration(broker, group: uniqueName("group")), logger: testLogger)
            try consumer.subscribe(topics: [topic])
            let received = try await consume(consumer, count: values.count)
            #expect(Set(received.compactMap { $0.value.map { String(decoding: $0, as: UTF8.self) } }) == Set(values))
            await consumer.close()
        }
    }
}
