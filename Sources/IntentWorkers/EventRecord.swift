public import IntentEvents
public import Kafka

extension KafkaProducerMessage {
    /// An event as a Kafka record: keyed by user id (per-user order and
    /// partition), with the CloudEvents structured-mode content type.
    public init(topic: String, event: EventEnvelope) {
        self.init(
            topic: topic, key: event.userID, value: event.encoded(),
            headers: [KafkaHeader(key: "content-type", string: "application/cloudevents+json")])
    }
}

extension KafkaConsumerMessage {
    /// The voice service's signature header (``EventAuthenticator/signatureHeader``), if any.
    public var signature: String? {
        headers.last { $0.key == EventAuthenticator.signatureHeader }?.stringValue
    }
}

extension KafkaProducerMessage {
    /// A signed event from outside the pipeline, as a voice service (or `intentctl voice`) publishes it.
    public init(topic: String, event: EventEnvelope, signedWith authenticator: EventAuthenticator) {
        self.init(topic: topic, event: event)
        if let signature = authenticator.signature(for: event) {
            headers.append(KafkaHeader(key: EventAuthenticator.signatureHeader, string: signature))
        }
    }
}
