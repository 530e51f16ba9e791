import BrokerTestSupport
import Foundation
import IntentEvents
import Kafka
import LocalBroker
import PipelineTestSupport
import Synchronization
import Testing

@testable import IntentWorkers

/// A transaction's commit marker takes an offset and is never delivered. Any producer (one
/// Kafka credential for every workload) can end a followed partition with one; a follower that
/// counted its position from delivered records stopped one short of the end, and every catch-up
/// to it (each restore, each snapshot of a payments member) waited for ever (SECURITY.md,
/// attack 57). The marker is written by Python's confluent-kafka, a transactional producer the
/// project's own client does not have.
@Suite("A transaction marker at a followed partition's end", .heavyTimeLimit(minutes: 2))
struct TransactionMarkerTests {
    @Test("a follower catches up to a partition whose last offset is a commit marker")
    func catchesUpPastCommitMarker() async throws {
        try await withBroker { broker in
            let topic = uniqueName("state")
            try await createTopic(broker, topic, partitions: 1)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            _ = try await producer.send(
                KafkaProducerMessage(topic: topic, partition: 0, key: Array("alice".utf8), value: Array("plain".utf8)))
            await producer.shutdown()
            try await Self.commitTransaction(
                of: "alice", "in-a-transaction", to: topic, bootstrap: broker.bootstrapServers)

            let applied = Mutex<[String]>([])
            let follower = try TopicFollower(
                configuration: clientConfiguration(broker), topic: topic, logger: testLogger,
                apply: { message in applied.withLock { $0.append(String(decoding: message.value ?? [], as: UTF8.self)) }
                },
                reject: { _, _ in }, forget: { _ in })
            let following = Task { try await follower.follow() }
            // Caught up, or not within a minute (before, never: the marker's offset is never
            // delivered). Unstructured, so a catch-up that never returns fails the test instead
            // of holding it.
            let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
            let reaching = Task {
                try? await follower.caughtUp(owning: [0])
                outcome.yield(true)
            }
            let timer = Task {
                try? await Task.sleep(for: .seconds(60))
                outcome.yield(false)
            }
            let caughtUp = await outcomes.first { _ in true } ?? false
            timer.cancel()
            reaching.cancel()
            #expect(caughtUp, "the follower never reached the partition's end past its commit marker")
            #expect(applied.withLock { $0 } == ["plain", "in-a-transaction"])
            following.cancel()
            _ = try? await following.value
            await follower.close()
        }
    }

    /// One record in a committed transaction, by a transactional confluent-kafka producer.
    static func commitTransaction(
        of key: String, _ value: String, to topic: String, bootstrap: String
    ) async throws {
        let directory = testFileURL(uniqueName("transaction"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = """
            import sys
            from confluent_kafka import Producer
            p = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": sys.argv[2]})
            p.init_transactions(30)
            p.begin_transaction()
            p.produce(sys.argv[3], key=sys.argv[4].encode(), value=sys.argv[5].encode(), partition=0)
            p.commit_transaction(30)
            print("committed")
            """
        let (status, output) = try await runProcess(
            name: "transactional producer", executable: try ToolLocator.python(),
            arguments: ["-c", script, bootstrap, uniqueName("tx"), topic, key, value],
            outputFile: directory.appendingPathComponent("output"), timeout: .seconds(60))
        #expect(status == 0, "\(output)")
        #expect(output.contains("committed"), "\(output)")
    }
}
