/// The attribute values nearly every record carries: the stages' and operators' sources, the
/// event types and their schemas, the content type. An envelope read from a record takes
/// these as one shared string each (``value(_:)``), instead of a new one: each is longer
/// than a small string's 15 bytes, so every record decoded made four or five of them on
/// the heap, in every stage and every follower.
///
/// Only a cache: a value missing here is read as any other string, so a type added
/// elsewhere and not listed costs an allocation, never a wrong reading.
/// `WellKnownAttributeValuesTests` checks that every payload type's `type` and `dataSchema`
/// is listed.
enum WellKnownAttributeValues {
    static let values: [String] = [
        EventEnvelope.contentType,
        PipelineSource.resolve, PipelineSource.confirm, PipelineSource.payments, PipelineSource.handle,
        PipelineSource.ledgerOperator,
        "intent.requested.v1", "intent.resolved.v1", "intent.prompt.v1", "intent.confirmed.v1",
        "intent.response.v1", "payment.confirmation.requested.v1", "payment.confirmation.v1",
        "payment.request.decline.v1", "payment.expiry.v1", "ledger.event.v1", "message.event.v1",
        "message.delivery.v1", "contact.upserted.v1", "user.settings.v1", "intent.smoke.ping.v1",
        "urn:intent-pipeline:schema:intent.requested:v1", "urn:intent-pipeline:schema:intent.resolved:v1",
        "urn:intent-pipeline:schema:intent.prompt:v1", "urn:intent-pipeline:schema:intent.confirmed:v1",
        "urn:intent-pipeline:schema:intent.response:v1",
        "urn:intent-pipeline:schema:payment.confirmation.requested:v1",
        "urn:intent-pipeline:schema:payment.confirmation:v1",
        "urn:intent-pipeline:schema:payment.request.decline:v1", "urn:intent-pipeline:schema:ledger.event:v1",
        "urn:intent-pipeline:schema:message.event:v1", "urn:intent-pipeline:schema:contact.upserted:v1",
        "urn:intent-pipeline:schema:user.settings:v1", "urn:intent-pipeline:schema:smoke.ping:v1",
    ]

    /// The listed value whose UTF-8 is `bytes`, if any.
    static func value(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let position = lookup.position(of: bytes) else { return nil }
        return values[position]
    }

    private static let lookup = BytesLookup(values)
}
