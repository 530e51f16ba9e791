public import CoreMetrics
public import Kafka
public import Logging

/// A directory record (a contact, a user's settings) a reader ignored because it
/// had already applied that key's version or a newer one: a replay of a captured
/// signed record, or a writer behind another. Rare by nature, and each one may be
/// an attack, so each is counted (`intent_directory_records_stale_total`, by topic)
/// and logged with its key and versions; the counter is looked up when needed.
public enum StaleDirectoryRecord {
    public static let metric = "intent_directory_records_stale_total"

    /// - Parameters:
    ///   - version: The ignored record's version; `seen`: the version the reader holds.
    ///   - message: The record as read: its place and key are logged.
    public static func report(
        version: Int64, seen: Int64, of message: KafkaConsumerMessage, metrics: any MetricsFactory, logger: Logger
    ) {
        Counter(label: metric, dimensions: [("topic", message.topic)], factory: metrics).increment()
        logger.warning(
            "directory record ignored: not newer than the version applied",
            metadata: [
                "record": "\(message.topicPartition)@\(message.offset)", "key": "\(message.keyString ?? "")",
                "version": "\(version)", "applied": "\(seen)",
            ])
    }
}
