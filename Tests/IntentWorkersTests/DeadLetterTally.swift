import BrokerTestSupport
import Kafka
import PipelineTestSupport
import PipelineTopics
import Testing

/// What a consolidated attack test (one broker, one pipeline, one step per attack) has had
/// dead-lettered so far: each step adds the reasons its inputs must be parked with, then every
/// dead letter so far is compared with them, in any order (they come from several stages and
/// partitions, so the order between steps' letters is not fixed).
struct DeadLetterTally {
    let pipeline: PipelineHarness
    private var reasons: [String] = []

    init(_ pipeline: PipelineHarness) { self.pipeline = pipeline }

    /// Waits for the letters of `added` too; returns every dead letter so far.
    @discardableResult
    mutating func expect(_ added: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [KafkaConsumerMessage]
    {
        reasons += added
        let letters = try await pipeline.deadLetters(count: reasons.count)
        #expect(
            letters.map { $0.header(DeadLetter.reasonHeader) ?? "none" }.sorted() == reasons.sorted(),
            sourceLocation: sourceLocation)
        return letters
    }
}
