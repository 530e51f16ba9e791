public import IntentEvents
public import IntentResolution
public import Kafka

extension ContactRecord {
    /// Reads a record of the contacts topic; with `authenticator`, only a contacts
    /// service's signed record (or tombstone) is accepted. Without one (unsigned input
    /// allowed, tests and local runs) the record is read as is.
    public static func decode(_ message: KafkaConsumerMessage, authenticator: EventAuthenticator?)
        throws(EventDecodingError) -> ContactRecord
    {
        guard let authenticator else {
            return try decode(key: message.key, value: message.value, tombstoneVersion: message.recordVersion)
        }
        return try decode(
            key: message.key, value: message.value, signature: message.signature,
            tombstoneSource: message.tombstoneSource, tombstoneVersion: message.recordVersion,
            authenticator: authenticator)
    }
}

extension UserSettingsRecord {
    /// Reads a record of the settings topic; with `authenticator`, only a settings
    /// service's signed record (or reset) is accepted.
    public static func decode(_ message: KafkaConsumerMessage, authenticator: EventAuthenticator?)
        throws(EventDecodingError) -> UserSettingsRecord
    {
        try decode(
            key: message.key, value: message.value, signature: message.signature,
            tombstoneSource: message.tombstoneSource, tombstoneVersion: message.recordVersion,
            authenticator: authenticator)
    }
}

extension KafkaConsumerMessage {
    /// A tombstone's ``ContactRecord/sourceHeader``.
    public var tombstoneSource: String? {
        headers.last { $0.key == ContactRecord.sourceHeader }?.stringValue
    }

    /// A tombstone's ``RecordVersion/header`` (a record's version is in its data).
    public var recordVersion: String? {
        headers.last { $0.key == RecordVersion.header }?.stringValue
    }
}
