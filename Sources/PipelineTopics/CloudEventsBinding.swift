public import IntentEvents
public import Kafka

/// The CloudEvents 1.0 Kafka protocol binding, both modes. Every event this
/// pipeline publishes is in structured mode (the whole event as the record
/// value, `content-type: application/cloudevents+json`); producers outside
/// may also use binary mode (attributes in `ce_*` headers, the data as the
/// value). Consumers turn a binary-mode record into its structured event
/// here, before any stage looks at it, so the stages decode, verify and
/// dead-letter one form.
public enum CloudEventsBinding {
    /// The structured mode's media type (the binding adds `; charset=UTF-8`; any parameters are accepted).
    public static let structuredContentType = "application/cloudevents+json"
    public static let contentTypeHeader = "content-type"
    public static let attributePrefix = "ce_"

    public enum Mode: Sendable, Equatable {
        case structured, binary
    }

    /// The binding's rule: a `content-type` of `application/cloudevents…` is
    /// structured; otherwise a `ce_specversion` header makes it binary. A
    /// record with neither is read as structured, as producers that set no
    /// headers always were.
    public static func mode(of headers: [KafkaHeader]) -> Mode {
        // Compared as ASCII bytes, case-insensitively: every record a worker or the audit reads
        // comes through here, and a lowercased copy of each header's name (four of a stage
        // record's are too long to be stored inline) was an allocation per header.
        if let contentType = headers.last(where: { asciiEqualIgnoringCase($0.key.utf8, contentTypeHeader.utf8) }),
            let value = contentType.value,
            value.count >= structuredPrefix.count,
            asciiEqualIgnoringCase(value.prefix(structuredPrefix.count), structuredPrefix)
        {
            return .structured
        }
        return headers.contains { $0.key == attributePrefix + "specversion" } ? .binary : .structured
    }

    private static let structuredPrefix = Array("application/cloudevents".utf8)

    /// Whether two byte strings are equal with ASCII letters compared case-insensitively.
    private static func asciiEqualIgnoringCase<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowered($0) == lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension KafkaConsumerMessage {
    /// This record with its event in structured form: itself in structured
    /// mode; in binary mode a copy whose value is the event's canonical
    /// structured JSON (its headers kept, so its signature is checked over
    /// those bytes). A binary-mode event that is not valid is refused with
    /// the header named (`ce_time`, `content-type`, or the value).
    public func structuredEvent(maximumBytes: Int = EventEnvelope.defaultMaximumBytes) throws(EventDecodingError)
        -> KafkaConsumerMessage
    {
        guard CloudEventsBinding.mode(of: headers) == .binary else { return self }
        var attributes: [(name: String, value: String)] = []
        var contentType: String?
        for header in headers {
            if header.key.lowercased() == CloudEventsBinding.contentTypeHeader {
                contentType = header.stringValue
                continue
            }
            guard header.key.lowercased().hasPrefix(CloudEventsBinding.attributePrefix) else { continue }
            let name = String(header.key.dropFirst(CloudEventsBinding.attributePrefix.count))
            guard let bytes = header.value, let text = String(validating: bytes, as: UTF8.self) else {
                throw EventDecodingError(
                    .schemaInvalid, field: header.key, "a binary-mode attribute header must hold UTF-8 text")
            }
            attributes.append((name, text))
        }
        do {
            let event = try BinaryModeEvent.decode(
                attributes: attributes, contentType: contentType, data: value, maximumBytes: maximumBytes)
            var structured = self
            structured.value = event.encoded()
            return structured
        } catch {
            throw error.naming(Self.binaryModeField(error.field))
        }
    }

    /// Where a binary-mode record holds what a structured event's `field` names.
    static func binaryModeField(_ field: String?) -> String? {
        guard let field, field.hasPrefix("$.") else { return field }
        let attribute = field.dropFirst(2)
        switch attribute {
        case "data": return "value"
        case "datacontenttype": return CloudEventsBinding.contentTypeHeader
        default:
            // `$.data.x` stays a path into the value.
            return attribute.hasPrefix("data.") || attribute.hasPrefix("data[")
                ? field : CloudEventsBinding.attributePrefix + attribute
        }
    }
}

extension KafkaProducerMessage {
    /// An event in the binding's binary mode: each attribute in a `ce_<name>`
    /// header, `content-type: application/json`, the data's canonical JSON
    /// as the value. What producers outside the pipeline may send (the
    /// pipeline itself publishes structured mode); headers carry text only,
    /// so extension values travel as their string form, and the signature
    /// covers the structured event a consumer assembles from them.
    public init(
        topic: String, binaryModeEvent event: EventEnvelope, signedWith authenticator: EventAuthenticator? = nil
    ) {
        var structured = event
        var attributes: [(String, String?)] = [
            ("specversion", EventEnvelope.specVersion), ("id", event.id), ("source", event.source),
            ("type", event.type), ("time", EventTime.format(event.time)), ("subject", event.subject),
            ("dataschema", event.dataSchema), ("userid", event.userID), ("conversationid", event.conversationID),
            ("intentid", event.intentID), ("causationid", event.causationID),
        ]
        for (name, value) in event.extensions.sorted {
            let text: String
            switch value {
            case .string(let string): text = string
            case .integer(let number): text = String(number)
            case .bool(let flag): text = flag ? "true" : "false"
            default: continue  // not a valid extension value; never held
            }
            attributes.append((name, text))
            try? structured.extensions.set(name, .string(text))
        }
        var headers = attributes.compactMap { name, value in
            value.map { KafkaHeader(key: CloudEventsBinding.attributePrefix + name, string: $0) }
        }
        headers.append(KafkaHeader(key: CloudEventsBinding.contentTypeHeader, string: EventEnvelope.contentType))
        self.init(
            topic: topic, key: Array(event.userID.utf8), value: CanonicalJSON.encode(event.data), headers: headers)
        if let authenticator { sign(structured.encoded(), as: structured.source, with: authenticator) }
    }
}
