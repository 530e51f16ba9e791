public import Foundation
public import IntentEvents
import Localization

/// What a user chose in the app's settings that the pipeline needs: the language
/// the assistant answers in when a request does not say (``UserLocale``).
public struct UserSettings: Codable, Sendable, Hashable {
    /// A BCP 47 tag (`zh-Hans-CN`, `ru-RU`); nil: English.
    public var locale: String?

    public init(locale: String? = nil) {
        self.locale = locale
    }
}

/// A record of the compacted users' settings topic, keyed by the user id and
/// on the user's partition (co-partitioned with the requests, so the resolve
/// member for a user holds the user's settings): a `user.settings.v1` event,
/// or a tombstone that resets the user to the defaults. Only a settings
/// service (``PipelineSource/settings``) may write either.
public enum UserSettingsRecord: Sendable, Hashable {
    case set(userID: String, settings: UserSettings)
    case reset(userID: String)

    public static let type = "user.settings.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:user.settings:v1"
    /// The header naming a tombstone's source (a settings event's is in its envelope).
    public static let sourceHeader = ContactRecord.sourceHeader

    /// What a reset's signature covers: the reset of this user's settings.
    public static func resetMessage(userID: String) -> [UInt8] {
        CanonicalJSON.encode(["intent-pipeline/user-settings-reset/v1", userID])
    }

    /// Reads a record strictly and, with `authenticator`, checks that a settings service
    /// signed it; a bad record is an ``EventDecodingError`` for the dead-letter topic. A
    /// locale that is not a BCP 47 tag is refused here, so it never reaches a formatter.
    public static func decode(
        key: [UInt8]?, value: [UInt8]?, signature: EventSignature?, tombstoneSource: String?,
        authenticator: EventAuthenticator?
    ) throws(EventDecodingError) -> UserSettingsRecord {
        guard let key, let userID = String(validating: key, as: UTF8.self), !userID.isEmpty else {
            throw EventDecodingError(.schemaInvalid, field: "key", "expected the user id as the key")
        }
        guard let value, !value.isEmpty else {
            try authenticator?.verify(
                canonical: resetMessage(userID: userID), source: tombstoneSource ?? "", what: "a settings reset",
                signature: signature, producedBy: PipelineSource.settings)
            return .reset(userID: userID)
        }
        let envelope = try EventEnvelope.decode(value)
        guard envelope.type == type else {
            throw EventDecodingError(
                .unknownType, field: "$.type", "expected \(type) on the settings topic, got \(envelope.type)")
        }
        try authenticator?.verify(envelope, received: value, signature: signature, producedBy: PipelineSource.settings)
        guard envelope.userID == userID else {
            throw EventDecodingError(
                .schemaInvalid, field: "key", "key \(userID) does not match userid \(envelope.userID)")
        }
        let settings = try envelope.decodeData(as: UserSettings.self)
        if let locale = settings.locale, !UserLocale.isWellFormed(locale) {
            throw EventDecodingError(.schemaInvalid, field: "$.data.locale", "not a BCP 47 language tag")
        }
        return .set(userID: userID, settings: settings)
    }

    /// The event a settings service publishes.
    public static func event(userID: String, settings: UserSettings, source: String, time: Date = Date())
        -> EventEnvelope
    {
        EventEnvelope(
            id: EventID.derived("settings", userID, String(decoding: CanonicalJSON.encode(settings), as: UTF8.self)),
            source: source, type: type, time: time, subject: userID, dataSchema: dataSchema, userID: userID,
            conversationID: "settings", payload: settings)
    }
}

/// The settings of the users of one partition, from the settings topic.
public struct UserSettingsDirectory: Sendable {
    private var settings: [String: UserSettings] = [:]

    public init() {}

    public mutating func apply(_ record: UserSettingsRecord) {
        switch record {
        case .set(let userID, let chosen): settings[userID] = chosen
        case .reset(let userID): settings[userID] = nil
        }
    }

    /// The locale the user chose, if any.
    public func locale(of userID: String) -> String? { settings[userID]?.locale }
}
