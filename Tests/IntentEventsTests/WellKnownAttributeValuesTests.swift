import Foundation
import IntentResolution
import Intents
import Messaging
import Payments
import Testing

@testable import IntentEvents

/// Envelopes read the attribute values every record carries as shared strings
/// (``WellKnownAttributeValues``): the table must hold each payload type's `type` and
/// `dataSchema`, or those records allocate again, and a value read through it must be the
/// value written.
@Suite("Well-known attribute values")
struct WellKnownAttributeValuesTests {
    static let declared = [
        IntentRequested.type, IntentRequested.dataSchema, IntentResolutionReport.promptType,
        IntentResolutionReport.promptDataSchema, IntentResolutionReport.resolvedType,
        IntentResolutionReport.resolvedDataSchema, IntentConfirmation.type, IntentConfirmation.dataSchema,
        ConfirmationRequest.type, ConfirmationRequest.dataSchema, ConfirmationAnswer.type,
        ConfirmationAnswer.dataSchema,
        IntentResponse.type, IntentResponse.dataSchema, PaymentRequestDecline.type, PaymentRequestDecline.dataSchema,
        MessageEvent.type, MessageEvent.dataSchema, SmokePing.type, SmokePing.dataSchema, LedgerEvent.type,
        LedgerEvent.dataSchema, UserSettingsRecord.type, UserSettingsRecord.dataSchema, ContactRecord.upsertedType,
        ContactRecord.upsertedDataSchema, EventEnvelope.contentType, PipelineSource.resolve, PipelineSource.confirm,
        PipelineSource.payments, PipelineSource.handle, PipelineSource.ledgerOperator,
    ]

    @Test("every payload type's type and schema, the stages' sources and the content type are listed once")
    func listsEveryDeclaredValue() {
        let listed = WellKnownAttributeValues.values
        for value in Self.declared {
            #expect(listed.contains(value), "\(value) is not in WellKnownAttributeValues")
        }
        #expect(Set(listed).count == listed.count)
    }

    @Test("a listed value is found by its bytes, and nothing else is")
    func findsByBytes() {
        for value in WellKnownAttributeValues.values {
            let bytes = Array(value.utf8)
            #expect(bytes.withUnsafeBufferPointer { WellKnownAttributeValues.value($0) } == value)
            // A byte changed, added or dropped is not the value.
            for changed in [bytes.dropLast() + [bytes.last! ^ 1], bytes + [0x20], Array(bytes.dropFirst())] {
                #expect(changed.withUnsafeBufferPointer { WellKnownAttributeValues.value($0) } == nil)
            }
        }
    }

    @Test("an envelope with well-known values decodes to the values written")
    func decodesTheValuesWritten() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.123)
        for (source, type, schema) in [
            (PipelineSource.payments, LedgerEvent.type, LedgerEvent.dataSchema),
            ("/voice/eu-1", IntentRequested.type, IntentRequested.dataSchema),
            ("/voice/a-source-longer-than-fifteen", "x.unlisted.type.v1", "urn:x:unlisted"),
        ] {
            let event = EventEnvelope(
                id: "e1", source: source, type: type, time: time, dataSchema: schema, userID: "u",
                conversationID: "c", data: .object(["a": .integer(1)]))
            let decoded = try EventEnvelope.decode(event.encoded())
            #expect(decoded == event)
            #expect(decoded.source == source && decoded.type == type && decoded.dataSchema == schema)
            #expect(EventTime.milliseconds(decoded.time) == 1_795_000_000_123)
        }
    }
}
