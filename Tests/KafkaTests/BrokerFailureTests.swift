import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Testing

@Suite("Broker failures")
struct BrokerFailureTests {
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

    @Test("an unreachable broker gives a clear error within bounded time, never a hang")
    func unreachableBroker() async throws {
        // Held for the whole test, so no broker another test starts can take the port.
        let nobody = try ReservedPort()
        let configuration = KafkaConfiguration(
            bootstrapServers: ["127.0.0.1:\(nobody.port)"], connectionSetupTimeout: .seconds(2),
            requestTimeout: .seconds(3))
        let admin = try KafkaAdminClient(configuration: configuration, logger: testLogger)
        let started = ContinuousClock.now
        do {
            try await admin.checkConnectivity()
            Issue.record("connected to a port nobody listens on")
        } catch {
            #expect(error.code.isConnectivity, "\(error)")
            #expect(error.description.contains("fetch cluster metadata"))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        await admin.close()
        withExtendedLifetime(nobody) {}
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
