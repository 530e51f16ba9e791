import Foundation
import GRDB
public import IntentEvents
import Intents
import Messaging
import Payments

/// Each user's app state in SQLite: conversations and messages, payments and
/// balances, payment requests, and intents in progress, plus a change feed
/// (a cursor per change) for background refresh. Fed by pipeline events;
/// an event applied twice changes nothing (event ids are recorded in the
/// same transaction as their effects).
public final class AppStateStore: Sendable {
    let database: DatabaseQueue
    let signal = ChangeSignal()
    /// What ``StateFiles`` found too open about the files, for the caller to log.
    public let fileWarnings: [String]

    /// Opens (creating if needed) the database at `path`; `:memory:` for tests.
    /// Files and directory are created private (see ``StateFiles``).
    public init(path: String) throws {
        fileWarnings = path == ":memory:" ? [] : try StateFiles.prepare(databaseAt: path)
        database = path == ":memory:" ? try DatabaseQueue() : try DatabaseQueue(path: path)
        try Self.migrator.migrate(database)
    }

    /// Opens the database at `path` migrated only up to `migration`: a database as an
    /// earlier version left it, for the tests of the migrations after it.
    init(path: String, migratedUpTo migration: String) throws {
        fileWarnings = try StateFiles.prepare(databaseAt: path)
        database = try DatabaseQueue(path: path)
        try Self.migrator.migrate(database, upTo: migration)
    }

    static let contactsMigration = "v2: contacts and account handles"

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE applied_events (id TEXT PRIMARY KEY);
                    CREATE TABLE changes (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, kind TEXT NOT NULL,
                        item_id TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL);
                    CREATE INDEX changes_by_user ON changes (user_id, seq);
                    CREATE TABLE items (
                        user_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL, body TEXT NOT NULL,
                        seq INTEGER NOT NULL, PRIMARY KEY (user_id, kind, item_id));
                    CREATE TABLE balances (
                        user_id TEXT NOT NULL, currency TEXT NOT NULL, available INTEGER NOT NULL DEFAULT 0,
                        held INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (user_id, currency));
                    """)
        }
        migrator.registerMigration(contactsMigration) { db in
            // Names for user ids: a user's contact is the account one of its handles opened.
            try db.execute(
                sql: """
                    CREATE TABLE contacts (
                        user_id TEXT NOT NULL, contact_id TEXT NOT NULL, name TEXT NOT NULL, handles TEXT NOT NULL,
                        PRIMARY KEY (user_id, contact_id));
                    CREATE TABLE contact_handles (
                        handle TEXT NOT NULL, user_id TEXT NOT NULL, contact_id TEXT NOT NULL,
                        PRIMARY KEY (handle, user_id, contact_id));
                    CREATE TABLE account_handles (handle TEXT PRIMARY KEY, user_id TEXT NOT NULL);
                    CREATE INDEX account_handles_by_user ON account_handles (user_id);
                    """)
        }
        migrator.registerMigration("v3: account versions") { db in
            // Each user's latest account version (open or closed): what the next must exceed.
            try db.execute(sql: "CREATE TABLE account_versions (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        }
        migrator.registerMigration("v4: versioned contacts, no account ids served") { db in
            try migrateToVersionedContacts(db)
        }
        migrator.registerMigration(positionsMigration) { db in try createPositions(db) }
        migrator.registerMigration(settingsMigration) { db in try createSettings(db) }
        migrator.registerMigration(ledgerClaimsMigration) { db in try createLedgerClaims(db) }
        return migrator
    }

    // MARK: Applying events

    /// Applies a pipeline event (response, ledger event or message event); false if already applied or not relevant.
    /// - Parameter position: The consumer's position after the event's record, stored in the same
    ///   transaction as its effects (``ConsumerPosition``); nil when it is not read from a topic.
    @discardableResult
    public func apply(_ envelope: EventEnvelope, position: ConsumerPosition? = nil) async throws -> Bool {
        // Ledger events pass the ledger's fencing first; a claim changes nothing shown but is kept.
        let ledgerEvent = envelope.type == LedgerEvent.type ? try LedgerEvent.decode(from: envelope) : nil
        let updates =
            try ledgerEvent.map { AppStateUpdates.of(ledger: $0, in: envelope) } ?? AppStateUpdates.of(envelope)
        guard !updates.isEmpty || ledgerEvent?.kind == .ownerClaimed else { return false }
        let applied = try await database.write { db in
            try Self.advance(db, to: position.map { [$0] } ?? [])
            // Fenced before its id is taken: the new owner's event under the same id (its void
            // of the same hold) still applies.
            if let ledgerEvent, try !Self.admits(db, ledgerEvent) || updates.isEmpty { return false }
            try db.execute(sql: "INSERT OR IGNORE INTO applied_events (id) VALUES (?)", arguments: [envelope.id])
            guard db.changesCount == 1 else { return false }
            let at = EventTime.format(envelope.time)
            for update in updates {
                switch update {
                case .item(let user, let kind, let id, var body, let counterparty):
                    if let counterparty {
                        body.merge(try Self.name(db, user, kind, id, counterparty)) { _, name in name }
                    }
                    let merged = try Self.merge(db, user, kind, id, body)
                    try Self.recordChange(db, user, kind.rawValue, id, merged, at)
                case .balance(let user, let currency, let available, let held):
                    try db.execute(
                        sql: """
                            INSERT INTO balances (user_id, currency, available, held) VALUES (?, ?, ?, ?)
                            ON CONFLICT (user_id, currency) DO UPDATE SET available = available + excluded.available,
                            held = held + excluded.held
                            """, arguments: [user, currency, available, held])
                    let row = try Row.fetchOne(
                        db, sql: "SELECT available, held FROM balances WHERE user_id = ? AND currency = ?",
                        arguments: [user, currency])!
                    try Self.recordChange(
                        db, user, AppStateUpdates.Kind.balance.rawValue, currency, Self.balance(row, currency), at)
                }
            }
            return true
        }
        if applied { signal.changed() }
        return applied
    }

    /// Merges new fields into an item (later events add to what earlier ones said).
    static func merge(
        _ db: Database, _ user: String, _ kind: AppStateUpdates.Kind, _ id: String, _ body: [String: JSONValue]
    ) throws -> JSONValue {
        var merged: [String: JSONValue] = [:]
        if let existing = try String.fetchOne(
            db, sql: "SELECT body FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
            arguments: [user, kind.rawValue, id]),
            case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(existing.utf8))
        {
            merged = fields
        }
        merged.merge(body) { _, new in new }
        let value = JSONValue.object(merged)
        try db.execute(
            sql: """
                INSERT INTO items (user_id, kind, item_id, body, seq) VALUES (?, ?, ?, ?, 0)
                ON CONFLICT (user_id, kind, item_id) DO UPDATE SET body = excluded.body
                """, arguments: [user, kind.rawValue, id, String(decoding: CanonicalJSON.encode(value), as: UTF8.self)])
        return value
    }

    /// A balance row as the API shows it: exact amounts as decimal strings.
    private static func balance(_ row: Row, _ currency: String) -> JSONValue {
        .object([
            "currency": .string(currency),
            "available": .string(Money(currency: currency, micros: row["available"]).amount.description),
            "held": .string(Money(currency: currency, micros: row["held"]).amount.description),
        ])
    }

    static func recordChange(
        _ db: Database, _ user: String, _ kind: String, _ id: String, _ body: JSONValue, _ at: String
    ) throws {
        try db.execute(
            sql: "INSERT INTO changes (user_id, kind, item_id, body, at) VALUES (?, ?, ?, ?, ?)",
            arguments: [user, kind, id, String(decoding: CanonicalJSON.encode(body), as: UTF8.self), at])
    }

    // MARK: Reading

    public struct Change: Codable, Sendable, Hashable {
        public var seq: Int64
        public var kind: String
        public var id: String
        public var item: JSONValue
        public var at: String
    }

    public struct ChangePage: Codable, Sendable, Hashable {
        /// Pass this as `since` next time.
        public var cursor: Int64
        public var changes: [Change]
    }

    /// What changed for the user after `cursor` (background refresh gets only that), oldest first.
    public func changes(of user: String, since cursor: Int64, limit: Int = 500) async throws -> ChangePage {
        try await database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT seq, kind, item_id, body, at FROM changes WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [user, cursor, limit])
            let changes = try rows.map { row in
                Change(
                    seq: row["seq"], kind: row["kind"], id: row["item_id"],
                    item: try JSONDecoder().decode(JSONValue.self, from: Data((row["body"] as String).utf8)),
                    at: row["at"])
            }
            return ChangePage(cursor: changes.last?.seq ?? cursor, changes: changes)
        }
    }

    /// The user's whole state: every item by kind, and the cursor it is current to.
    public func snapshot(of user: String) async throws -> JSONValue {
        try await database.read { db in
            let cursor = try Int64.fetchOne(
                db, sql: "SELECT MAX(seq) FROM changes WHERE user_id = ?", arguments: [user])
            var state: [String: JSONValue] = [:]
            for kind in AppStateUpdates.Kind.allCases where kind != .balance {
                let bodies = try String.fetchAll(
                    db, sql: "SELECT body FROM items WHERE user_id = ? AND kind = ? ORDER BY item_id",
                    arguments: [user, kind.rawValue])
                state[kind.plural] = .array(
                    try bodies.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) })
            }
            let balances = try Row.fetchAll(
                db, sql: "SELECT currency, available, held FROM balances WHERE user_id = ? ORDER BY currency",
                arguments: [user])
            state[AppStateUpdates.Kind.balance.plural] = .array(balances.map { Self.balance($0, $0["currency"]) })
            state["user"] = .string(user)
            state["cursor"] = .integer(cursor ?? 0)
            return .object(state)
        }
    }

    /// Changes after `cursor`, waiting up to `wait` for the first one: the live stream as a long poll.
    public func changes(of user: String, since cursor: Int64, waitingUpTo wait: Duration) async throws -> ChangePage {
        let deadline = ContinuousClock.now + wait
        while true {
            let seen = signal.generation
            let page = try await changes(of: user, since: cursor)
            let remaining = deadline - ContinuousClock.now
            if !page.changes.isEmpty || remaining <= .zero { return page }
            await signal.wait(after: seen, upTo: remaining)
        }
    }

    /// How many events the state holds (each applied once): a rebuild's progress.
    public func appliedEventCount() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM applied_events") ?? 0 }
    }

    /// The newest cursor of the user (0 when nothing happened yet).
    public func cursor(of user: String) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM changes WHERE user_id = ?", arguments: [user]) ?? 0
        }
    }
}
