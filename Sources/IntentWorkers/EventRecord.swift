public import ContactResolution
public import Foundation
public import IntentEvents
import IntentResolution
public import Intents
public import Kafka
import Payments

extension KafkaProducerMessage {
    /// A contact upsert for the compacted contacts topic, signed by a contacts service.
    public static func contact(
        _ contact: Contact, of userID: String, topic: String, source: String, signedWith keys: EventAuthenticator,
        time: Date = Date()
    ) -> KafkaProducerMessage {
        let event = ContactRecord.upsertEvent(userID: userID, contact: contact, source: source, time: time)
        var record = KafkaProducerMessage(topic: topic, event: event, signedWith: keys)
        record.key = ContactRecord.key(userID: userID, contactID: contact.id)
        return record
    }

    /// A contact's tombstone, signed over the deletion (``ContactRecord/deletionMessage(userID:contactID:)``).
    public static func contactDeletion(
        _ contactID: String, of userID: String, topic: String, source: String, signedWith keys: EventAuthenticator
    ) -> KafkaProducerMessage {
        var record = KafkaProducerMessage(
            topic: topic, key: ContactRecord.key(userID: userID, contactID: contactID), value: nil,
            headers: [KafkaHeader(key: ContactRecord.sourceHeader, string: source)])
        let message = ContactRecord.deletionMessage(userID: userID, contactID: contactID)
        if let signature = keys.signature(forCanonical: message, source: source) { record.append(signature) }
        return record
    }
}

extension KafkaProducerMessage {
    /// A payment account's opening (and opening deposits) for the ledger topic, signed as
    /// the ledger operator: the one way accounts enter the ledger from outside.
    public static func accountOpening(
        _ userID: String, handles: [String], verified: Bool = true, deposits: [CurrencyAmount] = [], topic: String,
        signedWith keys: EventAuthenticator, time: Date = Date()
    ) -> [KafkaProducerMessage] {
        LedgerEvent.opening(userID: userID, handles: handles, verified: verified, deposits: deposits).map {
            KafkaProducerMessage(
                topic: topic, event: $0.envelope(source: PipelineSource.ledgerOperator, time: time), signedWith: keys)
        }
    }
}

extension KafkaConsumerMessage {
    /// A tombstone's ``ContactRecord/sourceHeader``.
    public var tombstoneSource: String? {
        headers.last { $0.key == ContactRecord.sourceHeader }?.stringValue
    }
}
