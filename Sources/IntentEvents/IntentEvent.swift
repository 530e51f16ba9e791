/// An event about an intent, with the intent id its envelope must carry:
/// the stages act on intents, so they take this instead of an envelope whose
/// `intentID` they would have to unwrap.
public struct IntentEvent: Sendable {
    public let envelope: EventEnvelope
    public let intentID: String

    /// Refuses an envelope without an intent id, with a machine-readable reason.
    public init(_ envelope: EventEnvelope) throws(EventDecodingError) {
        guard let intentID = envelope.intentID else {
            throw EventDecodingError(.schemaInvalid, field: "$.intentid", "an intent event needs an intent id")
        }
        self.envelope = envelope
        self.intentID = intentID
    }
}
