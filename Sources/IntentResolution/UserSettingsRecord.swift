public import Foundation
public import IntentEvents
import Localization

/// What a user chose in the app's settings that the pipeline needs: the language
/// the assistant answers in when a request does not say (``UserLocale``), and the
/// voice services the user speaks through.
public struct UserSettings: Codable, Sendable, Hashable {
    /// The most voice services one user may be bound to.
    public static let maximumVoiceServices = 16

    /// A BCP 47 tag (`zh-Hans-CN`, `ru-RU`); nil: English.
    public var locale: String?
    /// The voice services (their `source`s) this user speaks through: when set, the resolve
    /// stage takes this user's requests only from them, so no other voice service, however
    /// valid its key, can start (and then confirm) an intent of this user's. Nil: any voice
    /// service, as before a user is bound.
    public var voiceServices: [String]?

    public init(locale: String? = nil, voiceServices: [String]? = nil) {
        self.locale = locale
        self.voiceServices = voiceServices
    }

    /// Whether `source` may speak for this user.
    public func admits(voiceService source: String) -> Bool { voiceServices?.contains(source) ?? true }
}

/// A record of the compacted users' settings topic, keyed by the user id and
/// on the user's partition (co-partitioned with the requests, so the resolve
/// member for a user holds the user's settings): a `user.settings.v1` event,
/// or a tombstone that resets the user to the defaults. Only a settings
/// service (``PipelineSource/settings``) may write either. Both carry a signed
/// version that only grows per user (``RecordVersion``): readers ignore an older
/// or equal one, so a re-appended old setting or reset changes nothing.
public enum UserSettingsRecord: Sendable, Hashable {
    case set(userID: String, settings: UserSettings, version: Int64 = RecordVersion.unversioned)
    case reset(userID: String, version: Int64 = RecordVersion.unversioned)

    public var userID: String {
        switch self {
        case .set(let userID, _, _), .reset(let userID, _): userID
        }
    }

    public var version: Int64 {
        switch self {
        case .set(_, _, let version), .reset(_, let version): version
        }
    }

    public static let type = "user.settings.v1"
    public static let dataSchema = "urn:intent-pipeline:schema:user.settings:v1"
    /// The header naming a tombstone's source (a settings event's is in its envelope).
    public static let sourceHeader = ContactRecord.sourceHeader

    /// What a reset's signature covers: the reset of this user's settings, at this
    /// version (carried in ``RecordVersion/header``); an unversioned reset (an older
    /// writer's) signs the message without it.
    public static func resetMessage(userID: String, version: Int64 = RecordVersion.unversioned) -> [UInt8] {
        guard version != RecordVersion.unversioned else {
            return CanonicalJSON.encode(["intent-pipeline/user-settings-reset/v1", userID])
        }
        return CanonicalJSON.encode(["intent-pipeline/user-settings-reset/v2", userID, String(version)])
    }

    /// Reads a record strictly and, with `authenticator`, checks that a settings service
    /// signed it; a bad record is an ``EventDecodingError`` for the dead-letter topic. A
    /// locale that is not a BCP 47 tag is refused here, so it never reaches a formatter.
    /// `tombstoneVersion` is a reset's ``RecordVersion/header``, if any.
    public static func decode(
        key: [UInt8]?, value: [UInt8]?, signature: EventSignature?, tombstoneSource: String?,
        tombstoneVersion: String? = nil, authenticator: EventAuthenticator?
    ) throws(EventDecodingError) -> UserSettingsRecord {
        guard let key, let userID = String(validating: key, as: UTF8.self), !userID.isEmpty else {
            throw EventDecodingError(.schemaInvalid, field: "key", "expected the user id as the key")
        }
        guard let value, !value.isEmpty else {
            let version = try RecordVersion.parseHeader(tombstoneVersion)
            try authenticator?.verify(
                canonical: resetMessage(userID: userID, version: version), source: tombstoneSource ?? "",
                what: "a settings reset", signature: signature, producedBy: PipelineSource.settings)
            return .reset(userID: userID, version: version)
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
        let data = try envelope.decodeData(as: Versioned<UserSettings>.self)
        let settings = data.payload
        if let locale = settings.locale, !UserLocale.isWellFormed(locale) {
            throw EventDecodingError(.schemaInvalid, field: "$.data.locale", "not a BCP 47 language tag")
        }
        if let services = settings.voiceServices {
            guard (1...UserSettings.maximumVoiceServices).contains(services.count),
                services.allSatisfy({ !$0.isEmpty && PipelineSource.voice.admits($0) })
            else {
                throw EventDecodingError(
                    .schemaInvalid, field: "$.data.voiceServices",
                    "1 to \(UserSettings.maximumVoiceServices) voice service sources (not the pipeline's, a contacts or a settings service's)"
                )
            }
        }
        return .set(userID: userID, settings: settings, version: try RecordVersion.check(data.version))
    }

    /// The event a settings service publishes; `version` nil writes an unversioned
    /// record (as older writers did).
    public static func event(
        userID: String, settings: UserSettings, version: Int64?, source: String, time: Date = Date()
    ) -> EventEnvelope {
        let data = Versioned(settings, version: version)
        return EventEnvelope(
            id: EventID.derived("settings", userID, String(decoding: CanonicalJSON.encode(data), as: UTF8.self)),
            source: source, type: type, time: time, subject: userID, dataSchema: dataSchema, userID: userID,
            conversationID: "settings", payload: data)
    }
}

/// The settings of the users of one partition, from the settings topic. It keeps
/// the highest version applied per user, resets included, so an older record read
/// later (a replay) is ignored.
public struct UserSettingsDirectory: Sendable {
    private var settings: [String: UserSettings] = [:]
    private var versions: [String: Int64] = [:]

    public init() {}

    /// Applies the record unless the user's settings are already at its version or newer.
    @discardableResult
    public mutating func apply(_ record: UserSettingsRecord) -> DirectoryChange {
        let seen = versions[record.userID]
        guard RecordVersion.supersedes(record.version, seen: seen) else {
            return .stale(version: record.version, seen: seen ?? RecordVersion.unversioned)
        }
        versions[record.userID] = record.version
        switch record {
        case .set(let userID, let chosen, _): settings[userID] = chosen
        case .reset(let userID, _): settings[userID] = nil
        }
        return .applied
    }

    /// The locale the user chose, if any.
    public func locale(of userID: String) -> String? { settings[userID]?.locale }

    /// The user's settings, if any.
    public func settings(of userID: String) -> UserSettings? { settings[userID] }
}
