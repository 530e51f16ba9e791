public import IntentEvents
public import Kafka

/// Dead-letter records. The original key and value travel unchanged (nothing
/// is lost, even bytes that are not UTF-8); why and where from travel in
/// headers, as Kafka Connect's dead-letter queues do, so operators can count
/// by reason and replay the record after a fix.
public enum DeadLetter {
    /// Machine-readable: an ``EventDecodingError/Reason`` raw value such as `schema_invalid`.
    public static let reasonHeader = "dlq-reason"
    /// JSON path of the offending field, when there is one.
    public static let fieldHeader = "dlq-field"
    /// A sentence for people.
    public static let messageHeader = "dlq-message"
    public static let topicHeader = "dlq-topic"
    public static let partitionHeader = "dlq-partition"
    public static let offsetHeader = "dlq-offset"
    /// The consumer group that parked it.
    public static let workerHeader = "dlq-worker"

    public static func record(
        for message: KafkaConsumerMessage, error: EventDecodingError, worker: String, topic: String
    ) -> KafkaProducerMessage {
        var headers = message.headers.filter { !$0.key.hasPrefix("dlq-") }
        headers += [
            KafkaHeader(key: reasonHeader, string: error.reason.rawValue),
            KafkaHeader(key: messageHeader, string: error.message),
            KafkaHeader(key: topicHeader, string: message.topic),
            KafkaHeader(key: partitionHeader, string: String(message.partition)),
            KafkaHeader(key: offsetHeader, string: String(message.offset)),
            KafkaHeader(key: workerHeader, string: worker),
        ]
        if let field = error.field { headers.append(KafkaHeader(key: fieldHeader, string: field)) }
        return KafkaProducerMessage(topic: topic, key: message.key, value: message.value, headers: headers)
    }
}
