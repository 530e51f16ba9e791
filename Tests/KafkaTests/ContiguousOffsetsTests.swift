import Testing

@testable import Kafka

/// The rule that turns a hole in a partition's offsets into a rewind (a record a fetch left
/// out is read again) and, after ``ContiguousOffsets/maximumRewinds`` rewinds of the same hole,
/// into the log's own hole (a transaction marker): pure, without a broker.
@Suite struct ContiguousOffsetsTests {
    static func record(_ partition: Int32, _ offset: Int64, topic: String = "in") -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: topic, partition: partition, offset: offset, key: nil, value: nil, headers: [], timestamp: nil)
    }

    static func hole(_ partition: Int32, _ expected: Int64, _ received: Int64) -> ContiguousOffsets.Hole {
        .init(partition: KafkaTopicPartition(topic: "in", partition: partition), expected: expected, received: received)
    }

    @Test("contiguous records, interleaved partitions and the first record after an assignment have no hole")
    func contiguous() {
        var offsets = ContiguousOffsets()
        #expect(offsets.inspect([Self.record(0, 60), Self.record(1, 5), Self.record(0, 61)]).isEmpty)
        #expect(offsets.inspect([Self.record(1, 6), Self.record(0, 62), Self.record(2, 900)]).isEmpty)
        // Same partition number, another topic: its own sequence.
        #expect(offsets.inspect([Self.record(0, 7, topic: "other")]).isEmpty)
    }

    @Test("a hole is rewound: once per poll, and again until the missing record comes")
    func holeRewound() {
        var offsets = ContiguousOffsets()
        _ = offsets.inspect([Self.record(0, 376)])
        let verdicts = offsets.inspect([Self.record(0, 378), Self.record(1, 3), Self.record(0, 379)])
        #expect(verdicts == [.rewind(Self.hole(0, 377, 378))])
        // Read again from 377, which is there now: no hole, and the next hole counts afresh.
        #expect(offsets.inspect([Self.record(0, 377), Self.record(0, 378)]).isEmpty)
        for _ in 0..<ContiguousOffsets.maximumRewinds {
            #expect(offsets.inspect([Self.record(0, 380)]) == [.rewind(Self.hole(0, 379, 380))])
        }
    }

    @Test("a hole still there after every rewind is the log's own: delivered, and reading goes on past it")
    func holeAccepted() {
        var offsets = ContiguousOffsets()
        _ = offsets.inspect([Self.record(0, 9)])
        for _ in 0..<ContiguousOffsets.maximumRewinds {
            #expect(offsets.inspect([Self.record(0, 11)]) == [.rewind(Self.hole(0, 10, 11))])
        }
        #expect(offsets.inspect([Self.record(0, 11), Self.record(0, 12)]) == [.accepted(Self.hole(0, 10, 11))])
        #expect(offsets.inspect([Self.record(0, 13)]).isEmpty)
    }

    @Test("a failed rewind, a seek or a new assignment start the partition afresh")
    func forgetting() {
        var offsets = ContiguousOffsets()
        _ = offsets.inspect([Self.record(0, 1), Self.record(1, 1)])
        #expect(offsets.inspect([Self.record(0, 5)]) == [.rewind(Self.hole(0, 2, 5))])
        offsets.rewindFailed(Self.hole(0, 2, 5), lastPolled: 5)
        #expect(offsets.inspect([Self.record(0, 6)]).isEmpty)
        offsets.forget([KafkaTopicPartition(topic: "in", partition: 0)])
        #expect(offsets.inspect([Self.record(0, 50)]).isEmpty)
        #expect(offsets.inspect([Self.record(1, 3)]) == [.rewind(Self.hole(1, 2, 3))])
        offsets.forgetAll()
        #expect(offsets.inspect([Self.record(1, 30)]).isEmpty)
    }
}
