/// The checks every stage makes on a record before looking at its payload:
/// size, strict envelope, an expected type, an intent id, and a record key
/// equal to the user id (the key decides the partition, so a mismatch would
/// break per-user order), and, for events from outside, a valid signature.
public enum IncomingEvent {
    public static func decode(
        key: String?, value: [UInt8]?, types: Set<String>, maximumBytes: Int = EventEnvelope.defaultMaximumBytes,
        deferringData: Bool = true
    ) throws(EventDecodingError) -> EventEnvelope {
        try decode(key: key, value: value, maximumBytes: maximumBytes, deferringData: deferringData) {
            types.contains($0)
        } carried: {
            types.sorted()
        }
    }

    /// ``decode(key:value:types:maximumBytes:deferringData:)`` for a topic of one type: what
    /// a stage reads per record, so no set of types is built (and hashed) for each.
    public static func decode(
        key: String?, value: [UInt8]?, type: String, maximumBytes: Int = EventEnvelope.defaultMaximumBytes,
        deferringData: Bool = true
    ) throws(EventDecodingError) -> EventEnvelope {
        try decode(key: key, value: value, maximumBytes: maximumBytes, deferringData: deferringData) {
            $0 == type
        } carried: {
            [type]
        }
    }

    private static func decode(
        key: String?, value: [UInt8]?, maximumBytes: Int, deferringData: Bool, admits: (String) -> Bool,
        carried: () -> [String]
    ) throws(EventDecodingError) -> EventEnvelope {
        let envelope = try EventEnvelope.decode(value ?? [], maximumBytes: maximumBytes, deferringData: deferringData)
        guard admits(envelope.type) else {
            throw EventDecodingError(
                .unknownType, field: "$.type",
                "this topic carries \(carried().joined(separator: ", ")), not \(envelope.type)")
        }
        guard key == envelope.userID else {
            throw EventDecodingError(
                .schemaInvalid, field: "key",
                "the record key must be the user id \(envelope.userID), got \(key.map { "\"\($0)\"" } ?? "none")")
        }
        return envelope
    }

    /// ``decode(key:value:type:maximumBytes:deferringData:)`` for an event about an intent:
    /// one without an intent id is refused here, so no stage unwraps one.
    public static func decodeIntent(
        key: String?, value: [UInt8]?, type: String, maximumBytes: Int = EventEnvelope.defaultMaximumBytes
    ) throws(EventDecodingError) -> IntentEvent {
        try IntentEvent(decode(key: key, value: value, type: type, maximumBytes: maximumBytes))
    }
}
