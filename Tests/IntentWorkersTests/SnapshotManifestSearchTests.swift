import BrokerTestSupport
import Foundation
import IntentEvents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

@testable import IntentWorkers

/// Anyone with produce rights can append a record keyed `manifest` to the snapshots topic: one
/// that is not the writer's, or not for its partition, is passed over for the writer's own
/// manifest before it. Before, only the last manifest was tried, so one junk record made every
/// member that gained the partition rebuild it from the ledger's start (which is kept for ever).
@Suite("Ledger snapshots: a junk manifest after the writer's is passed over", .heavyTimeLimit(minutes: 2))
struct SnapshotManifestSearchTests {
    @Test("the writer's snapshot is restored past junk and misplaced manifests after it; without one, why not")
    func passesOverJunkManifests() async throws {
        try await withBroker { broker in
            let topic = uniqueName("snapshots")
            try await createTopic(broker, topic, partitions: 2)
            let store = SnapshotStore(
                topic: topic, stateTopic: "ledger", writer: PipelineSource.payments, keys: testStageKeys,
                configuration: clientConfiguration(broker))
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let state = Array((0..<3000).map { UInt8(truncatingIfNeeded: $0) })
            _ = try await store.write(
                partition: 0, position: 42, bytes: state, previous: [], writerInstance: "m1", producer: producer)
            // The writer's own manifest of partition 1, copied onto partition 0, and unsigned junk.
            _ = try await store.write(
                partition: 1, position: 7, bytes: [1, 2, 3], previous: [], writerInstance: "m1", producer: producer)
            var manifests: [KafkaConsumerMessage] = []
            try await TopicReader.forEachRecord(
                of: topic, configuration: clientConfiguration(broker), logger: testLogger
            ) { if $0.partition == 1 && $0.key == Array("manifest".utf8) { manifests.append($0) } }
            let copied = try #require(manifests.first)
            _ = try await producer.sendAll([
                KafkaProducerMessage(
                    topic: topic, partition: 0, key: copied.key, value: copied.value, headers: copied.headers),
                KafkaProducerMessage(
                    topic: topic, partition: 0, key: Array("manifest".utf8), value: Array("{\"junk\":1}".utf8)),
            ])
            let restored = try await store.latest(partitions: [0], logger: testLogger)
            switch restored[0] {
            case .success(let snapshot):
                #expect(snapshot.position == 42)
                #expect(snapshot.bytes == state)
            case .failure(let unusable):
                Issue.record("the writer's snapshot was not used: \(unusable)")
            case nil:
                Issue.record("no snapshot found")
            }
            // A partition whose only manifest is junk: not used, and the reason says why.
            let lone = uniqueName("snapshots")
            try await createTopic(broker, lone, partitions: 1)
            _ = try await producer.send(
                KafkaProducerMessage(
                    topic: lone, partition: 0, key: Array("manifest".utf8), value: Array("{\"junk\":1}".utf8)))
            let junkOnly = SnapshotStore(
                topic: lone, stateTopic: "ledger", writer: PipelineSource.payments, keys: testStageKeys,
                configuration: clientConfiguration(broker))
            guard case .failure(let unusable)? = try await junkOnly.latest(partitions: [0], logger: testLogger)[0]
            else {
                Issue.record("a junk manifest was used")
                return
            }
            #expect(unusable.description.contains("is not /workers/payments's"))
            await producer.shutdown()
        }
    }
}
