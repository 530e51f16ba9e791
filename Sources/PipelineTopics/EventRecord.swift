public import IntentEvents
public import Kafka

extension KafkaProducerMessage {
    /// An event as a Kafka record: keyed by user id (per-user order and
    /// partition), with the CloudEvents structured-mode content type.
    public init(topic: String, event: EventEnvelope) {
        self.init(topic: topic, key: event.userID, encodedEvent: event.encoded())
    }

    private init(topic: String, key: String, encodedEvent: [UInt8]) {
        // Room for the signatures, view signatures and chain link a stage adds, so the
        // headers are allocated once; the content type's bytes are shared, not copied.
        var headers: [KafkaHeader] = []
        headers.reserveCapacity(7)
        headers.append(KafkaHeader(key: "content-type", value: Self.structuredContentType))
        self.init(topic: topic, key: key, value: encodedEvent, headers: headers)
    }

    private static let structuredContentType = Array("application/cloudevents+json".utf8)

    /// A signed event: a voice service's (or `intentctl voice`'s), or a stage's
    /// output, signed with the last key its source has in `authenticator`, and with
    /// its view key when it has one (``ViewKey``). The event is encoded once, for the
    /// value and the signatures.
    public init(topic: String, event: EventEnvelope, signedWith authenticator: EventAuthenticator) {
        let encoded = event.encoded()
        self.init(topic: topic, key: event.userID, encodedEvent: encoded)
        sign(encoded, as: event.source, with: authenticator)
    }

    /// Appends the signature of `signed` by `source`'s key and, if `authenticator` has
    /// one, by its view key.
    public mutating func sign(_ signed: [UInt8], as source: String, with authenticator: EventAuthenticator) {
        if let signature = authenticator.signatureHeaderValues(forCanonical: signed, source: source) {
            headers.append(KafkaHeader(key: EventSignature.header, value: signature.hex))
            headers.append(KafkaHeader(key: EventSignature.keyIDHeader, value: signature.keyID))
        }
        if let view = authenticator.signatureHeaderValues(forCanonical: signed, source: source, view: true) {
            headers.append(KafkaHeader(key: EventSignature.viewHeader, value: view.hex))
            headers.append(KafkaHeader(key: EventSignature.viewKeyIDHeader, value: view.keyID))
        }
    }

    /// The view signature headers: ``EventSignature/viewHeader`` and ``EventSignature/viewKeyIDHeader``.
    public mutating func append(view signature: EventSignature) {
        append(signature, EventSignature.viewHeader, EventSignature.viewKeyIDHeader)
    }

    /// The signature headers: ``EventSignature/header`` and, with an id, ``EventSignature/keyIDHeader``.
    public mutating func append(_ signature: EventSignature) {
        append(signature, EventSignature.header, EventSignature.keyIDHeader)
    }

    private mutating func append(_ signature: EventSignature, _ header: String, _ keyIDHeader: String) {
        headers.append(KafkaHeader(key: header, string: signature.hex))
        if let keyID = signature.keyID { headers.append(KafkaHeader(key: keyIDHeader, string: keyID)) }
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
        // Almost every record is linked once: only one linked before (sent again after a
        // failed delivery) is searched for its old signature and has its old link taken out,
        // so a first link scans the headers once, not three times.
        let isLink = { (header: KafkaHeader) in
            header.key == RecordChain.header || header.key == RecordChain.signatureHeader
        }
        let linkedBefore = headers.contains(where: isLink)
        let earlier =
            linkedBefore
            ? headers.last { $0.key == RecordChain.signatureHeader }?.stringValue
                .flatMap(RecordChain.signature(headerValue:))?.hex : nil
        guard
            let stamp = RecordChain.stamp(
                topic: role, partition: partition, source: source, previous: previous, supersedes: earlier,
                value: value, keys: keys)
        else { return nil }
        self.partition = partition
        if linkedBefore {
            headers.removeAll(where: isLink)
        }
        headers.append(KafkaHeader(key: RecordChain.header, value: stamp.link))
        headers.append(KafkaHeader(key: RecordChain.signatureHeader, value: stamp.signature))
        return stamp.hash
    }
}

extension KafkaConsumerMessage {
    /// The producer's signature headers (``EventSignature``), if any.
    public var signature: EventSignature? { signature(EventSignature.header, EventSignature.keyIDHeader) }

    /// The producer's view signature headers (``ViewKey``), if any.
    public var viewSignature: EventSignature? { signature(EventSignature.viewHeader, EventSignature.viewKeyIDHeader) }

    private func signature(_ header: String, _ keyIDHeader: String) -> EventSignature? {
        guard let hex = headers.last(where: { $0.key == header })?.stringValue else { return nil }
        return EventSignature(keyID: headers.last { $0.key == keyIDHeader }?.stringValue, hex: hex)
    }

    /// The record as the app state checks it: its view signature (``ViewKey``) in place
    /// of its signature, so every decoder that verifies ``signature`` verifies the view
    /// signature instead, with a keyring of view keys (``EventAuthenticator/viewing``).
    /// A record without a view signature comes out unsigned, and is refused.
    public var viewed: KafkaConsumerMessage {
        var viewed = self
        viewed.headers = headers.compactMap { header in
            switch header.key {
            case EventSignature.header, EventSignature.keyIDHeader: nil
            case EventSignature.viewHeader: KafkaHeader(key: EventSignature.header, value: header.value)
            case EventSignature.viewKeyIDHeader: KafkaHeader(key: EventSignature.keyIDHeader, value: header.value)
            default: header
            }
        }
        return viewed
    }
}
