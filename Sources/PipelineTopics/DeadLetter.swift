public import IntentEvents
public import Kafka

/// Dead-letter records. The original key and value travel unchanged (nothing
/// is lost, even bytes that are not UTF-8); why and where from travel in
/// headers, as Kafka Connect's dead-letter queues do, so operators can count
/// by reason and replay the record after a fix. A record too large to copy
/// is parked as a reference instead (DeadLetterReference.swift).
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
    /// The content type of a dead letter whose original record gave none, and of a reference.
    public static let opaqueContentType = "application/octet-stream"

    /// The dead letter for `message`: a copy of the original with the reason
    /// in headers, or, when that copy would be larger than `maximumBytes`
    /// (key, value and headers; normally the producer's `message.max.bytes`),
    /// a ``reference(for:error:worker:topic:refusal:)`` to it.
    public static func record(
        for message: KafkaConsumerMessage, error: EventDecodingError, worker: String, topic: String,
        maximumBytes: Int = KafkaProducerConfiguration.defaultMaximumMessageBytes
    ) -> KafkaProducerMessage {
        var headers = message.headers.filter { !$0.key.hasPrefix("dlq-") }
        // Every record the pipeline publishes says what its value is: the original's
        // content type when it gave one, else opaque bytes (it could not be read as an event).
        if !headers.contains(where: { $0.key.lowercased() == CloudEventsBinding.contentTypeHeader }) {
            headers.append(KafkaHeader(key: CloudEventsBinding.contentTypeHeader, string: opaqueContentType))
        }
        headers += reasonHeaders(for: message, error: error, worker: worker)
        let copy = KafkaProducerMessage(topic: topic, key: message.key, value: message.value, headers: headers)
        guard copy.recordBytes <= maximumBytes else {
            return reference(for: message, error: error, worker: worker, topic: topic)
        }
        return copy
    }

    /// Why and where from: the headers every dead letter carries.
    static func reasonHeaders(
        for message: KafkaConsumerMessage, error: EventDecodingError, worker: String
    ) -> [KafkaHeader] {
        var headers = [
            KafkaHeader(key: reasonHeader, string: error.reason.rawValue),
            KafkaHeader(key: messageHeader, string: error.message),
            KafkaHeader(key: topicHeader, string: message.topic),
            KafkaHeader(key: partitionHeader, string: String(message.partition)),
            KafkaHeader(key: offsetHeader, string: String(message.offset)),
            KafkaHeader(key: workerHeader, string: worker),
        ]
        if let field = error.field { headers.append(KafkaHeader(key: fieldHeader, string: field)) }
        return headers
    }
}

extension KafkaProducerMessage {
    /// Key, value and header bytes: what librdkafka compares with `message.max.bytes`.
    var recordBytes: Int {
        (key?.count ?? 0) + (value?.count ?? 0)
            + headers.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) }
    }
}
