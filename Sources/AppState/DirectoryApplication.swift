import Foundation
import GRDB
import IntentEvents
import IntentResolution

/// What applying a record of a compacted directory topic (a contact, a user's settings) did.
public enum DirectoryApplication: Sendable, Hashable {
    /// The user sees a change (the contact's item, a name on a payment or request, the page's language).
    case changed
    /// Applied, but nothing the user sees changed (the same contact or setting again).
    case unchanged
    /// Ignored: the record's key is already at `seen`, which `version` does not supersede
    /// (``RecordVersion/supersedes(_:seen:)``): a replay of an older record or tombstone.
    case stale(version: Int64, seen: Int64)
}

extension AppStateStore {
    /// One directory record's transaction: stores the consumer's position after it and, if
    /// `version` supersedes the version `table` holds for `keys` (``RecordVersion/supersedes(_:seen:)``:
    /// deletions and resets keep theirs too, so a replayed older record changes nothing),
    /// stores it there and runs `apply` with the time of the change for the feed; else the
    /// record is ``DirectoryApplication/stale(version:seen:)``.
    func applyVersioned(
        _ version: Int64, in table: String, keys: KeyValuePairs<String, String>, at time: Date,
        position: ConsumerPosition?, _ apply: @escaping @Sendable (Database, String) throws -> DirectoryApplication
    ) async throws -> DirectoryApplication {
        defer { signal.changed() }
        let at = EventTime.format(time)
        let columns = keys.map(\.key)
        let values = keys.map(\.value)
        return try await database.write { db in
            try Self.advance(db, to: position.map { [$0] } ?? [])
            let seen = try Int64.fetchOne(
                db, sql: "SELECT version FROM \(table) WHERE \(columns.map { "\($0) = ?" }.joined(separator: " AND "))",
                arguments: StatementArguments(values))
            guard RecordVersion.supersedes(version, seen: seen) else {
                return .stale(version: version, seen: seen ?? RecordVersion.unversioned)
            }
            try db.execute(
                sql: """
                    INSERT INTO \(table) (\(columns.joined(separator: ", ")), version)
                    VALUES (\(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))
                    ON CONFLICT (\(columns.joined(separator: ", "))) DO UPDATE SET version = excluded.version
                    """, arguments: StatementArguments(values.map { $0 as any DatabaseValueConvertible } + [version]))
            return try apply(db, at)
        }
    }
}
