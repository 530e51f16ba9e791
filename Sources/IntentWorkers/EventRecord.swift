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
