/// Why an event was rejected. ``Reason`` is machine-readable: it is what a
/// dead-letter record carries, so operators can count and route by it.
public struct EventDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// Larger than the configured limit; not parsed at all.
        case oversized
        /// Not JSON, or not a JSON object.
        case unparseable
        /// JSON, but not a valid envelope or payload (missing, unknown or mistyped field).
        case schemaInvalid = "schema_invalid"
        /// A `specversion` other than 1.0.
        case unsupportedSpecVersion = "unsupported_specversion"
        /// An event type this consumer does not handle.
        case unknownType = "unknown_type"
        /// Missing or wrong signature, or a source without a key.
        case unauthenticated
        /// Signed correctly, but for another user than the one it acts on.
        case wrongUser = "wrong_user"
        /// From a source that may not produce this kind of event (a stage's output
        /// signed by another stage, a voice service writing a stage's event).
        case wrongProducer = "wrong_producer"
        /// Dated outside the accepted window: a replayed or pre-dated event.
        case stale
        /// An answer to nothing that waits for one: no proposal was made for the intent, or
        /// the intent has already ended. It changes nothing and gets no response.
        case notPending = "not_pending"
        /// A stage event whose id was already acted on: a copy re-appended to the topic
        /// (or the same id with other contents). It changes nothing.
        case replayed
    }

    public let reason: Reason
    /// JSON path of the offending field (e.g. `$.time`), when there is one.
    public let field: String?
    public let message: String

    public init(_ reason: Reason, field: String? = nil, _ message: String) {
        self.reason = reason
        self.field = field
        self.message = message
    }

    /// The same refusal, pointing at `field` instead: where another form of
    /// the event (a binary-mode record's header) holds what was refused.
    public func naming(_ field: String?) -> EventDecodingError {
        EventDecodingError(reason, field: field, message)
    }

    public var description: String {
        "\(reason.rawValue)\(field.map { " at \($0)" } ?? ""): \(message)"
    }
}
