import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Synchronization
import Testing

/// Closing a client while other tasks use it: every call either works on a
/// live librdkafka instance or fails with `_DESTROY`, never touches a freed
/// one (which would crash the test process or, under `--sanitize=thread` /
/// `address`, be reported), and nothing waits forever.
@Suite("Closing clients while they are in use", .heavyTimeLimit(minutes: 5))
struct ClientLifecycleTests {
    /// What a send may end with when the producer closes under it: delivered,
    /// refused because closed, or purged from the queue by the close.
    static let acceptableSendFailures: Set<KafkaError.Code> = [.destroyed, .purgeQueue, .purgeInFlight]

    @Test("shutdown races send, flush and inFlightCount; afterwards every call fails with _DESTROY or is a no-op")
    func producerClosedWhileSending() async throws {
        try await withBroker { broker in
            let topic = uniqueName("lifecycle")
            try await createTopic(broker, topic, partitions: 2)
            for round in 0..<12 {
                let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
                let tally = Tally()
                let firstDelivery = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for sender in 0..<2 {
                        group.addTask {
                            // Sends until a send fails because the producer closed.
                            while true {
                                let batch = (0..<50).map {
                                    KafkaProducerMessage(
                                        topic: topic, key: "k\(sender)-\($0)", value: bytes("round \(round) \($0)"))
                                }
                                let results = await producer.send(batch: batch)
                                var closed = false
                                for result in results {
                                    switch result {
                                    case .success:
                                        tally.delivered.withLock { $0 += 1 }
                                        firstDelivery.continuation.yield()
                                    case .failure(let error):
                                        if !Self.acceptableSendFailures.contains(error.code) {
                                            tally.unexpected.withLock { $0.append("send: \(error)") }
                                        }
                                        closed = closed || error.code == .destroyed
                                    }
                                }
                                if closed { return }
                            }
                        }
                    }
                    group.addTask {
                        while !tally.closed.withLock({ $0 }) {
                            do throws(KafkaError) {
                                try await producer.flush(timeout: .milliseconds(50))
                            } catch {
                                if error.code != .timedOut, error.code != .destroyed {
                                    tally.unexpected.withLock { $0.append("flush: \(error)") }
                                }
                            }
                            if producer.inFlightCount < 0 {
                                tally.unexpected.withLock { $0.append("negative in flight") }
                            }
                        }
                    }
                    group.addTask {
                        // Close once records are flowing, with sends, flushes and counts in progress.
                        for await _ in firstDelivery.stream { break }
                        await producer.shutdown(flushTimeout: .milliseconds(round.isMultiple(of: 2) ? 0 : 20))
                        tally.closed.withLock { $0 = true }
                        firstDelivery.continuation.finish()
                    }
                    try await group.waitForAll()
                }
                #expect(tally.unexpected.withLock { $0 } == [], "round \(round)")
                #expect(tally.delivered.withLock { $0 } > 0, "round \(round): nothing was delivered before the close")
                // After the close: sends and flushes fail with _DESTROY, nothing is in flight.
                let after = await producer.send(batch: [KafkaProducerMessage(topic: topic, key: "k", value: [1])])
                #expect(after.failures.map(\.code) == [.destroyed])
                do throws(KafkaError) {
                    try await producer.flush(timeout: .milliseconds(10))
                    Issue.record("flush after shutdown succeeded")
                } catch {
                    #expect(error.code == .destroyed)
                }
                #expect(producer.inFlightCount == 0)
                await producer.shutdown()
            }
        }
    }

    @Test("close races poll, commit, storeOffsets and assignment; afterwards each fails with _DESTROY")
    func consumerClosedWhilePolling() async throws {
        try await withBroker { broker in
            let topic = uniqueName("lifecycle")
            try await createTopic(broker, topic, partitions: 2)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            _ = try await producer.sendAll(
                (0..<400).map { KafkaProducerMessage(topic: topic, key: "k\($0)", value: bytes("record \($0)")) })
            await producer.shutdown()
            for round in 0..<8 {
                let consumer = try KafkaConsumer(
                    configuration: consumerConfiguration(broker, group: uniqueName("lifecycle")), logger: testLogger)
                try consumer.assign([0, 1].map { KafkaPartitionOffset(topic: topic, partition: $0, offset: 0) })
                let tally = Tally()
                let firstRecords = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while true {
                            do throws(KafkaError) {
                                let batch = try await consumer.poll(maxMessages: 20, timeout: .milliseconds(20))
                                if !batch.isEmpty {
                                    try consumer.markProcessed(batch)
                                    firstRecords.continuation.yield()
                                }
                            } catch {
                                tally.note("poll", error)
                                return
                            }
                        }
                    }
                    group.addTask {
                        while true {
                            do throws(KafkaError) {
                                _ = try await consumer.commit()
                                _ = try consumer.assignment()
                            } catch {
                                tally.note("commit", error)
                                return
                            }
                        }
                    }
                    group.addTask {
                        for await _ in firstRecords.stream { break }
                        await consumer.close()
                        firstRecords.continuation.finish()
                    }
                }
                #expect(tally.unexpected.withLock { $0 } == [], "round \(round)")
                await #expect(throws: KafkaError.self) { _ = try await consumer.poll(timeout: .milliseconds(1)) }
                do throws(KafkaError) {
                    _ = try await consumer.commit()
                    Issue.record("commit after close succeeded")
                } catch {
                    #expect(error.code == .destroyed)
                }
                #expect(throws: KafkaError.self) { _ = try consumer.assignment() }
                #expect(throws: KafkaError.self) {
                    try consumer.storeOffsets([KafkaPartitionOffset(topic: topic, partition: 0, offset: 1)])
                }
                await consumer.close()
            }
        }
    }

}

/// What the racing tasks of one round saw.
private final class Tally: Sendable {
    let delivered = Mutex(0)
    let closed = Mutex(false)
    let unexpected = Mutex<[String]>([])

    /// Any error ends the loop that met it; only `_DESTROY` is expected.
    func note(_ what: String, _ error: KafkaError) {
        if error.code != .destroyed { unexpected.withLock { $0.append("\(what): \(error)") } }
    }
}
