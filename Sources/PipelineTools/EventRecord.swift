public import ContactResolution
public import Foundation
public import IntentEvents
public import IntentResolution
public import Intents
public import Kafka
public import Payments
public import PipelineTopics

extension KafkaProducerMessage {
    /// A contact upsert for the compacted contacts topic, signed by a contacts service.
    ///
    /// The record is keyed by user and contact (compaction keeps each contact's
    /// latest) but placed on the partition of its user, `partitions` being the
    /// topic's partition count: the contacts are co-partitioned with the resolve
    /// stage's input, so the member that owns a user's requests holds their book.
    /// `version` must grow per contact, deletions included (``RecordVersion``).
    public static func contact(
        _ contact: Contact, of userID: String, version: Int64, topic: String, partitions: Int, source: String,
        signedWith keys: EventAuthenticator, time: Date = Date()
    ) -> KafkaProducerMessage {
        let event = ContactRecord.upsertEvent(
            userID: userID, contact: contact, version: version, source: source, time: time)
        var record = KafkaProducerMessage(topic: topic, event: event, signedWith: keys)
        record.key = ContactRecord.key(userID: userID, contactID: contact.id)
        record.partition = KafkaPartitioner.partition(forKey: userID, partitions: partitions)
        return record
    }

    /// A contact's tombstone, signed over the deletion at `version`
    /// (``ContactRecord/deletionMessage(userID:contactID:version:)``), on its user's
    /// partition like the upsert it deletes.
    public static func contactDeletion(
        _ contactID: String, of userID: String, version: Int64, topic: String, partitions: Int, source: String,
        signedWith keys: EventAuthenticator
    ) -> KafkaProducerMessage {
        signedTombstone(
            topic: topic, partition: KafkaPartitioner.partition(forKey: userID, partitions: partitions),
            key: ContactRecord.key(userID: userID, contactID: contactID), source: source, version: version,
            deletion: ContactRecord.deletionMessage(userID: userID, contactID: contactID, version: version), keys: keys)
    }

    /// A tombstone signed over `deletion` as `source`. A tombstone has no envelope to name its
    /// source and version, so the ``ContactRecord/sourceHeader`` and ``RecordVersion/header``
    /// do (contacts and settings alike); `deletion` must cover the version.
    static func signedTombstone(
        topic: String, partition: Int32, key: [UInt8], source: String, version: Int64, deletion: [UInt8],
        keys: EventAuthenticator
    ) -> KafkaProducerMessage {
        var headers = [KafkaHeader(key: ContactRecord.sourceHeader, string: source)]
        if version != RecordVersion.unversioned {
            headers.append(KafkaHeader(key: RecordVersion.header, string: String(version)))
        }
        var record = KafkaProducerMessage(topic: topic, partition: partition, key: key, value: nil, headers: headers)
        record.sign(deletion, as: source, with: keys)
        return record
    }
}

extension KafkaProducerMessage {
    /// A user's settings for the compacted settings topic, keyed by the user on the user's
    /// partition, signed by a settings service; nil settings: a reset (a tombstone signed
    /// over ``UserSettingsRecord/resetMessage(userID:version:)``). `version` must grow per
    /// user, resets included (``RecordVersion``).
    public static func userSettings(
        _ settings: UserSettings?, of userID: String, version: Int64, topic: String, partitions: Int,
        source: String, signedWith keys: EventAuthenticator, time: Date = Date()
    ) -> KafkaProducerMessage {
        let partition = KafkaPartitioner.partition(forKey: userID, partitions: partitions)
        guard let settings else {
            return signedTombstone(
                topic: topic, partition: partition, key: Array(userID.utf8), source: source, version: version,
                deletion: UserSettingsRecord.resetMessage(userID: userID, version: version), keys: keys)
        }
        let event = UserSettingsRecord.event(
            userID: userID, settings: settings, version: version, source: source, time: time)
        var record = KafkaProducerMessage(topic: topic, event: event, signedWith: keys)
        record.key = Array(userID.utf8)
        record.partition = partition
        return record
    }
}

extension KafkaProducerMessage {
    /// A payment account's opening at `version` (and opening deposits) for the ledger
    /// topic, and the opening again for the accounts directory, signed as the ledger
    /// operator: the one way accounts enter the ledger from outside.
    public static func accountOpening(
        _ userID: String, handles: [String], verified: Bool = true, version: Int = 1,
        deposits: [CurrencyAmount] = [], topics: PipelineTopics, signedWith keys: EventAuthenticator,
        time: Date = Date()
    ) -> [KafkaProducerMessage] {
        ledgerOperator(
            LedgerEvent.opening(
                userID: userID, handles: handles, verified: verified, version: version, deposits: deposits),
            topics: topics, signedWith: keys, time: time)
    }

    /// Events the ledger operator writes (openings, closings, deposits), signed as it: each
    /// on the ledger topic (its user's partition), and openings and closings also on the
    /// accounts topic, all on its partition 0: the directory's rules depend on the order
    /// account records are read in, and one partition is one order for every reader.
    public static func ledgerOperator(
        _ events: [LedgerEvent], topics: PipelineTopics, signedWith keys: EventAuthenticator, time: Date = Date()
    ) -> [KafkaProducerMessage] {
        func record(_ event: LedgerEvent, _ topic: String) -> KafkaProducerMessage {
            KafkaProducerMessage(
                topic: topic, event: event.envelope(source: PipelineSource.ledgerOperator, time: time), signedWith: keys
            )
        }
        return events.map { record($0, topics.ledger) }
            + events.filter { $0.kind == .accountOpened || $0.kind == .accountClosed }.map {
                var directory = record($0, topics.accounts)
                directory.partition = PipelineTopics.accountsPartition
                return directory
            }
    }
}
