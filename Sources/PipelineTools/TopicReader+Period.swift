public import Foundation
public import Kafka
public import Logging
public import PipelineTopics

/// A period of a topic read with progress on the terminal: what replays, audits and
/// `intentctl ledger` read (the workers read offsets, never periods).
extension TopicReader {
    /// The records written from `from` (nil: the beginning) until `to` (nil: now), found
    /// by ``offsets(of:at:configuration:logger:)``, each handed to `body` after `progress` counts it.
    public static func forEachRecord(
        of topic: String, from: Date?, to: Date?, configuration: KafkaConfiguration, logger: Logger,
        progress: ReplayProgress? = nil, _ body: (KafkaConsumerMessage) throws -> Void
    ) async throws {
        func offsets(at time: Date?) async throws -> [KafkaTopicPartition: Int64]? {
            guard let time else { return nil }
            return try await Self.offsets(of: topic, at: time, configuration: configuration, logger: logger)
                .mapValues(\.offset.offset)
        }
        try await forEachRecord(
            of: topic, between: try await offsets(at: from), and: try await offsets(at: to),
            configuration: configuration, logger: logger
        ) { message in
            progress?.advance()
            try body(message)
        }
    }
}
