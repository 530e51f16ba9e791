import Foundation
import IntentEvents
public import Kafka
public import Logging
public import PipelineAudit
import PipelineTopics

extension IntentTimeline {
    /// Reads `topics` as they are now (outside any group) and keeps the
    /// records about `intentID`: events in either CloudEvents mode, and dead
    /// letters whose original was an event about it (with their reason).
    public static func read(
        intentID: String, topics: [String], deadLetterTopic: String, configuration: KafkaConfiguration, logger: Logger
    ) async throws -> IntentTimeline {
        var records: [Record] = []
        for topic in topics {
            try await TopicReader.forEachRecord(of: topic, configuration: configuration, logger: logger) { message in
                guard let structured = try? message.structuredEvent(),
                    let event = try? EventEnvelope.decode(structured.value ?? []), event.intentID == intentID
                else { return }
                records.append(
                    Record(
                        topic: message.topic, partition: message.partition, offset: message.offset,
                        published: message.timestamp, event: event,
                        deadLetterReason: topic == deadLetterTopic
                            ? message.headers.last { $0.key == DeadLetter.reasonHeader }?.stringValue : nil))
            }
        }
        return IntentTimeline(intentID: intentID, records: records)
    }
}
