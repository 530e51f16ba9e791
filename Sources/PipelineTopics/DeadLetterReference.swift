import IntentCrypto
public import IntentEvents
public import Kafka

/// A dead letter that points at the original instead of copying it, for a
/// record too large to copy (or one the producer or broker refuses to take
/// as it is). Any record can be parked this way, whatever its size or bytes,
/// so no record can stop a worker.
///
/// The reference carries the usual `dlq-*` headers (reason, message, topic,
/// partition, offset, worker, field) and:
/// - `dlq-original-size`: the original value's size in bytes;
/// - `dlq-original-sha256`: the SHA-256 of the original value, lowercase hex;
/// - `dlq-truncated`: `true`;
/// - `dlq-refusal`: the producer's or broker's error name, when the copy was
///   refused (`MSG_SIZE_TOO_LARGE`, ...).
///
/// Its value is the first ``referencePrefixBytes`` of the original value; its
/// key is the original key when that is no longer than the prefix, else none.
/// The original headers are not kept (they may be what is large). The
/// original stays on its topic until retention removes it: fetch it by
/// topic, partition and offset, and check it against the SHA-256.
extension DeadLetter {
    public static let originalSizeHeader = "dlq-original-size"
    public static let originalSHA256Header = "dlq-original-sha256"
    public static let truncatedHeader = "dlq-truncated"
    public static let refusalHeader = "dlq-refusal"
    /// How much of the original value (and at most of its key and of any header) a reference keeps.
    public static let referencePrefixBytes = 1024

    public static func reference(
        for message: KafkaConsumerMessage, error: EventDecodingError, worker: String, topic: String,
        refusal: KafkaError? = nil
    ) -> KafkaProducerMessage {
        let value = message.value ?? []
        // The reason's text and field path may quote the input; keep them short too.
        var headers = reasonHeaders(for: message, error: error, worker: worker).map { header in
            guard let bytes = header.value, bytes.count > referencePrefixBytes else { return header }
            return KafkaHeader(key: header.key, value: Array(bytes.prefix(referencePrefixBytes)))
        }
        headers += [
            KafkaHeader(key: originalSizeHeader, string: String(value.count)),
            KafkaHeader(key: originalSHA256Header, string: Digest.hex(Digest.sha256(value))),
            KafkaHeader(key: truncatedHeader, string: "true"),
        ]
        if let refusal { headers.append(KafkaHeader(key: refusalHeader, string: refusal.name)) }
        // A prefix of the value is no longer the original's media type.
        headers.append(KafkaHeader(key: CloudEventsBinding.contentTypeHeader, string: DeadLetter.opaqueContentType))
        return KafkaProducerMessage(
            topic: topic, key: message.key.flatMap { $0.count <= referencePrefixBytes ? $0 : nil },
            value: message.value.map { Array($0.prefix(referencePrefixBytes)) }, headers: headers)
    }
}
