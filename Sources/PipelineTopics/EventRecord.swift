public import IntentEvents
public import Kafka

extension KafkaProducerMessage {
    /// An event as a Kafka record: keyed by user id (per-user order and
    /// partition), with the CloudEvents structured-mode content type.
    public init(topic: String, event: EventEnvelope) {
        self.init(topic: topic, key: event.userID, encodedEvent: event.encoded())
    }

    private init(topic: String, key: String, encodedEvent: [UInt8]) {
        self.init(
            topic: topic, key: key, value: encodedEvent,
            headers: [KafkaHeader(key: "content-type", string: "application/cloudevents+json")])
    }

    /// A signed event: a voice service's (or `intentctl voice`'s), or a stage's
    /// output, signed with the last key its source has in `authenticator`. The
    /// event is encoded once, for the value and the signature.
    public init(topic: String, event: EventEnvelope, signedWith authenticator: EventAuthenticator) {
        let encoded = event.encoded()
        self.init(topic: topic, key: event.userID, encodedEvent: encoded)
        if let signature = authenticator.signature(forCanonical: encoded, source: event.source) { append(signature) }
    }

    /// The signature headers: ``EventSignature/header`` and, with an id, ``EventSignature/keyIDHeader``.
    public mutating func append(_ signature: EventSignature) {
        headers.append(KafkaHeader(key: EventSignature.header, string: signature.hex))
        if let keyID = signature.keyID { headers.append(KafkaHeader(key: EventSignature.keyIDHeader, string: keyID)) }
    }
}

extension KafkaConsumerMessage {
    /// The producer's signature headers (``EventSignature``), if any.
    public var signature: EventSignature? {
        guard let hex = headers.last(where: { $0.key == EventSignature.header })?.stringValue else { return nil }
        return EventSignature(keyID: headers.last { $0.key == EventSignature.keyIDHeader }?.stringValue, hex: hex)
    }
}
