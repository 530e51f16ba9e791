import BrokerTestSupport
import Foundation
import Testing

@testable import Kafka

@Suite("Key partitioning")
struct PartitionerTests {
    @Test("murmur2 gives the Java client's values (Kafka's own test vectors)")
    func javaVectors() {
        let vectors: [(String, Int32)] = [
            ("21", -973_932_308), ("foobar", -790_332_482), ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971), ("abc", 479_470_107),
        ]
        for (key, expected) in vectors {
            #expect(Int32(bitPattern: KafkaPartitioner.murmur2(Array(key.utf8))) == expected, "\(key)")
        }
    }

    @Test("the producer puts each key where KafkaPartitioner says")
    func matchesProducer() async throws {
        try await withBroker { broker in
            let topic = uniqueName("partitioning")
            try await createTopic(broker, topic, partitions: 7)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            let keys = (0..<60).map { "user-\($0)" } + ["小明", "Юлия", "alice", ""]
            let reports = try await producer.sendAll(
                keys.map { KafkaProducerMessage(topic: topic, key: $0, value: bytes("v")) })
            await producer.shutdown()
            #expect(Set(reports.map(\.partition)).count > 1)
            for (key, report) in zip(keys, reports) {
                #expect(report.partition == KafkaPartitioner.partition(forKey: key, partitions: 7), "\(key)")
            }
        }
    }
}
