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

extension KafkaProducerMessage {
    /// Links the record into `source`'s chain on `partition` of its topic (``RecordChain``),
    /// after the record whose hash is `previous`: places it on that partition and sets the
    /// link headers. `role` is the topic's name without the deployment's prefix. A record
    /// linked before (sent again after a failed delivery) names that attempt as the one it
    /// supersedes. Returns the record's hash, what the next record names; nil, leaving the
    /// record as it was, when it has no value or `keys` no key for `source`.
    public mutating func link(
        after previous: String, source: String, role: String, partition: Int32, keys: EventAuthenticator
    ) -> String? {
        guard let value else { return nil }
        let earlier = headers.last { $0.key == RecordChain.signatureHeader }?.stringValue
            .flatMap(RecordChain.signature(headerValue:))?.hex
        let link = RecordChain.Link(source: source, previous: previous, supersedes: earlier)
        guard
            let signature = RecordChain.signature(
                topic: role, partition: partition, link: link, value: value, keys: keys)
        else { return nil }
        self.partition = partition
        headers.removeAll { $0.key == RecordChain.header || $0.key == RecordChain.signatureHeader }
        headers.append(KafkaHeader(key: RecordChain.header, string: link.headerValue))
        headers.append(KafkaHeader(key: RecordChain.signatureHeader, string: RecordChain.headerValue(of: signature)))
        return signature.hex
    }
}

extension KafkaConsumerMessage {
    /// The producer's signature headers (``EventSignature``), if any.
    public var signature: EventSignature? {
        guard let hex = headers.last(where: { $0.key == EventSignature.header })?.stringValue else { return nil }
        return EventSignature(keyID: headers.last { $0.key == EventSignature.keyIDHeader }?.stringValue, hex: hex)
    }
}
