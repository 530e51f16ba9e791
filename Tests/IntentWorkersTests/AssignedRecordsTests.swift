import Kafka
import Testing

@testable import IntentWorkers

/// A batch polled across a rebalance: the records of a partition revoked inside the poll are
/// not decided (the next owner reads them from the last commit); everything else is kept, in order.
@Suite struct AssignedRecordsTests {
    static func record(_ topic: String, _ partition: Int32, _ offset: Int64) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: topic, partition: partition, offset: offset, key: nil, value: nil, headers: [], timestamp: nil)
    }

    @Test("records of a partition revoked during the poll are dropped; the rest keep their order")
    func revokedDropped() {
        let batch = [
            Self.record("in", 4, 10), Self.record("in", 1, 7), Self.record("in", 4, 11), Self.record("in", 2, 3),
        ]
        let kept = AssignedRecords.keeping(batch, input: "in", assigned: [1, 2])
        #expect(kept.map(\.partition) == [1, 2])
        #expect(kept.map(\.offset) == [7, 3])
    }

    @Test("a batch of held partitions, and records of other topics, pass as they are")
    func heldKept() {
        let batch = [Self.record("in", 1, 7), Self.record("other", 9, 1), Self.record("in", 2, 3)]
        #expect(AssignedRecords.keeping(batch, input: "in", assigned: [1, 2]) == batch)
        #expect(AssignedRecords.keeping([], input: "in", assigned: []) == [])
    }
}
