public import Foundation
import GRDB
import IntentEvents
public import IntentResolution

/// The language each user chose in the app's settings, so the page is in it whatever
/// the browser's language: one item of kind `setting` per user, `{id: "language",
/// locale: "ru-RU"}`, served with the state and its changes; a user without a chosen
/// language has none (a change `{id: "language", deleted: true}` when one is removed),
/// and the page follows the browser. Only the locale is kept: which voice services a
/// user speaks through is the resolve stage's business, not the page's.
extension AppStateStore {
    static let settingsMigration = "v6: users' languages"

    /// The id of the one `setting` item a user has.
    public static let languageItem = "language"

    static func createSettings(_ db: Database) throws {
        // Each user's settings version (resets included): what the next record must exceed.
        try db.execute(sql: "CREATE TABLE settings_versions (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL)")
    }

    /// Applies a record of the users' settings topic (already checked to come from a settings
    /// service), unless the user's settings are already at its version or newer: a replayed
    /// older setting or reset changes nothing.
    /// - Parameter at: When it happened, for the change feed.
    /// - Parameter position: The consumer's position after the record, stored with its effects.
    @discardableResult
    public func apply(
        settings record: UserSettingsRecord, at time: Date = Date(), position: ConsumerPosition? = nil
    ) async throws -> DirectoryApplication {
        try await applyVersioned(
            record.version, in: "settings_versions", keys: ["user_id": record.userID], at: time, position: position
        ) { db, at in
            let user = record.userID
            let kind = AppStateUpdates.Kind.setting
            let current = try String.fetchOne(
                db, sql: "SELECT body FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
                arguments: [user, kind.rawValue, Self.languageItem])
            let locale: String? =
                switch record {
                case .set(_, let settings, _): settings.locale
                case .reset: nil
                }
            guard let locale else {
                guard current != nil else { return .unchanged }
                try db.execute(
                    sql: "DELETE FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
                    arguments: [user, kind.rawValue, Self.languageItem])
                try Self.recordChange(
                    db, user, kind.rawValue, Self.languageItem,
                    .object(["id": .string(Self.languageItem), "deleted": .bool(true)]), at)
                return .changed
            }
            let body: [String: JSONValue] = ["id": .string(Self.languageItem), "locale": .string(locale)]
            guard current != String(decoding: CanonicalJSON.encode(JSONValue.object(body)), as: UTF8.self) else {
                return .unchanged
            }
            try Self.recordChange(
                db, user, kind.rawValue, Self.languageItem, try Self.merge(db, user, kind, Self.languageItem, body), at)
            return .changed
        }
    }
}
