/// The checks every stage makes on a record before looking at its payload:
/// size, strict envelope, an expected type, an intent id, and a record key
/// equal to the user id (the key decides the partition, so a mismatch would
/// break per-user order), and, for events from outside, a valid signature.
public enum IncomingEvent {
    public static func decode(
        key: String?, value: [UInt8]?, types: Set<String>, maximumBytes: Int = EventEnvelope.defaultMaximumBytes,
        requireIntentID: Bool = true
    ) throws(EventDecodingError) -> EventEnvelope {
        let envelope = try EventEnvelope.decode(value ?? [], maximumBytes: maximumBytes)
        guard types.contains(envelope.type) else {
            throw EventDecodingError(
                .unknownType, field: "$.type",
                "this topic carries \(types.sorted().joined(separator: ", ")), not \(envelope.type)")
        }
        if requireIntentID, envelope.intentID == nil {
            throw EventDecodingError(.schemaInvalid, field: "$.intentid", "an intent event needs an intent id")
        }
        guard key == envelope.userID else {
            throw EventDecodingError(
                .schemaInvalid, field: "key",
                "the record key must be the user id \(envelope.userID), got \(key.map { "\"\($0)\"" } ?? "none")")
        }
        return envelope
    }
}
