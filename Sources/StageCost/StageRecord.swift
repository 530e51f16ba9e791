import IntentEvents
import Kafka

/// One input record of a stage as its worker hands it to the decision: the key, the
/// value's bytes and the signature headers, already read out of the Kafka message.
struct StageRecord: Sendable {
    var key: String
    var value: [UInt8]
    var signature: EventSignature?

    init(key: String, value: [UInt8], signature: EventSignature?) {
        self.key = key
        self.value = value
        self.signature = signature
    }

    /// What a stage's consumer reads of a record another stage (or a voice service) produced.
    init(_ record: KafkaProducerMessage) {
        let hex = record.headers.last { $0.key == EventSignature.header }?.stringValue
        let keyID = record.headers.last { $0.key == EventSignature.keyIDHeader }?.stringValue
        self.init(
            key: String(decoding: record.key ?? [], as: UTF8.self), value: record.value ?? [],
            signature: hex.map { EventSignature(keyID: keyID, hex: $0) })
    }
}
