/// The checks every stage makes on a record before looking at its payload:
/// size, strict envelope, an expected type, an intent id, and a record key
/// equal to the user id (the key decides the partition, so a mismatch would
/// break per-user order), and, for events from outside, a valid signature.
public enum IncomingEvent {
    public static func decode(
        key: String?, value: [UInt8]?, types: Set<String>, maximumBytes: Int = EventEnvelope.defaultMaximumBytes,
        deferringData: Bool = false
    ) throws(EventDecodingError) -> EventEnvelope {
        let envelope = try EventEnvelope.decode(value ?? [], maximumBytes: maximumBytes, deferringData: deferringData)
        guard types.contains(envelope.type) else {
            throw EventDecodingError(
                .unknownType, field: "$.type",
                "this topic carries \(types.sorted().joined(separator: ", ")), not \(envelope.type)")
        }
        guard key == envelope.userID else {
            throw EventDecodingError(
                .schemaInvalid, field: "key",
                "the record key must be the user id \(envelope.userID), got \(key.map { "\"\($0)\"" } ?? "none")")
        }
        return envelope
    }

    /// ``decode(key:value:types:maximumBytes:deferringData:)`` for an event about an intent:
    /// one without an intent id is refused here, so no stage unwraps one.
    public static func decodeIntent(
        key: String?, value: [UInt8]?, types: Set<String>, maximumBytes: Int = EventEnvelope.defaultMaximumBytes
    ) throws(EventDecodingError) -> IntentEvent {
        try IntentEvent(decode(key: key, value: value, types: types, maximumBytes: maximumBytes))
    }
}
