public import Foundation
import GRDB
import IntentEvents
public import IntentResolution
import Intents
public import Payments

/// Names instead of user ids: the app shows "to 孙波", not "to sunbo", and never
/// another user's account id. A user's contact is an item of kind `contact`
/// (`{id, name}`); a deleted contact is a change `{id, deleted: true}`. Which
/// account a contact's handles opened is never served (it would tell anyone who
/// adds a phone number whether it has an account, and whose). Payment and request
/// items name their counterparty on the server instead (`counterpartyName`,
/// `counterpartyContact`): the viewer's own contact one of whose handles the
/// counterparty's account opened with (matched as a payee is,
/// ``Person/normalizedHandle(_:)``), else the handle the viewer used themselves
/// (the account a payment they confirmed went to), else null (the page says
/// "someone"). The names follow the viewer's contacts and the accounts' handles as
/// they change; the counterparty's user id stays in a table no endpoint reads.
extension AppStateStore {
    /// Applies a record of the contacts topic (already checked to come from a contacts
    /// service), unless the contact is already at its version or newer: the highest
    /// version of each contact is kept, deletions included, so a replayed older record
    /// or tombstone changes nothing.
    /// - Parameter at: When it happened, for the change feed.
    /// - Parameter position: The consumer's position after the record, stored with its effects.
    @discardableResult
    public func apply(
        contact record: ContactRecord, at time: Date = Date(), position: ConsumerPosition? = nil
    ) async throws -> DirectoryApplication {
        try await applyVersioned(
            record.version, in: "contact_versions", keys: ["user_id": record.userID, "contact_id": record.contactID],
            at: time, position: position
        ) { db, at in
            let user = record.userID
            let before = try String.fetchAll(
                db, sql: "SELECT handle FROM contact_handles WHERE user_id = ? AND contact_id = ?",
                arguments: [user, record.contactID])
            switch record {
            case .upsert(_, let contact, _):
                let handles = (contact.handles ?? []).map(Person.normalizedHandle)
                let handlesText = String(decoding: CanonicalJSON.encode(handles), as: UTF8.self)
                let existing = try Row.fetchOne(
                    db, sql: "SELECT name, handles FROM contacts WHERE user_id = ? AND contact_id = ?",
                    arguments: [user, contact.id])
                if let existing, existing["name"] == contact.displayName, existing["handles"] == handlesText {
                    return .unchanged
                }
                try db.execute(
                    sql: """
                        INSERT INTO contacts (user_id, contact_id, name, handles) VALUES (?, ?, ?, ?)
                        ON CONFLICT (user_id, contact_id) DO UPDATE SET name = excluded.name, handles = excluded.handles
                        """, arguments: [user, contact.id, contact.displayName, handlesText])
                try db.execute(
                    sql: "DELETE FROM contact_handles WHERE user_id = ? AND contact_id = ?",
                    arguments: [user, contact.id])
                for handle in handles {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO contact_handles (handle, user_id, contact_id) VALUES (?, ?, ?)",
                        arguments: [handle, user, contact.id])
                }
                let kind = AppStateUpdates.Kind.contact
                let body: [String: JSONValue] = ["id": .string(contact.id), "name": .string(contact.displayName)]
                try Self.recordChange(
                    db, user, kind.rawValue, contact.id, try Self.merge(db, user, kind, contact.id, body), at)
                try Self.renameCounterparties(db, of: user, owningAny: before + handles, at: at)
                return .changed
            case .delete(_, let contactID, _):
                try db.execute(
                    sql: "DELETE FROM contacts WHERE user_id = ? AND contact_id = ?", arguments: [user, contactID])
                guard db.changesCount == 1 else { return .unchanged }
                try db.execute(
                    sql: "DELETE FROM contact_handles WHERE user_id = ? AND contact_id = ?",
                    arguments: [user, contactID])
                try db.execute(
                    sql: "DELETE FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
                    arguments: [user, AppStateUpdates.Kind.contact.rawValue, contactID])
                try Self.recordChange(
                    db, user, AppStateUpdates.Kind.contact.rawValue, contactID,
                    .object(["id": .string(contactID), "deleted": .bool(true)]), at)
                try Self.renameCounterparties(db, of: user, owningAny: before, at: at)
                return .changed
            }
        }
    }

    /// Applies an account opening or closing of the accounts topic (already checked to come
    /// from the ledger operator) under the directory's rules (``AccountDirectory``): versions
    /// only grow, and a handle another open account holds is not taken. Returns why it was
    /// ignored, or nil (applied, or already applied). Contacts whose account changes are renamed.
    /// - Parameter position: The consumer's position after the record, stored with its effects.
    @discardableResult
    public func apply(
        account event: LedgerEvent, at time: Date = Date(), position: ConsumerPosition? = nil
    ) async throws -> AccountDirectory.Refusal? {
        defer { signal.changed() }
        let at = EventTime.format(time)
        return try await database.write { db -> AccountDirectory.Refusal? in
            try Self.advance(db, to: position.map { [$0] } ?? [])
            try db.execute(sql: "INSERT OR IGNORE INTO applied_events (id) VALUES (?)", arguments: [event.id])
            guard db.changesCount == 1 else { return nil }
            let opening = event.kind == .accountOpened
            let version = event.accountVersion ?? 0
            let current = try Int.fetchOne(
                db, sql: "SELECT version FROM account_versions WHERE user_id = ?", arguments: [event.userID])
            if let refusal = try AccountDirectory.refusal(
                userID: event.userID, version: version, claiming: opening ? event.handles ?? [] : [],
                currentVersion: current,
                owner: {
                    try String.fetchOne(
                        db, sql: "SELECT user_id FROM account_handles WHERE handle = ?", arguments: [$0])
                })
            {
                return refusal
            }
            try db.execute(
                sql: """
                    INSERT INTO account_versions (user_id, version) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET version = excluded.version
                    """, arguments: [event.userID, version])
            try Self.openAccount(db, event.userID, handles: opening ? event.handles ?? [] : [], at: at)
            return nil
        }
    }

    /// Records which handles the user's account now has (none once closed): the rules
    /// were applied, so no handle is another's. Renames the payments and requests whose
    /// counterparty gained or lost a handle a viewer's contact has.
    static func openAccount(_ db: Database, _ user: String, handles: [String], at: String) throws {
        let handles = handles.map(Person.normalizedHandle)
        let released = try String.fetchAll(
            db, sql: "SELECT handle FROM account_handles WHERE user_id = ?", arguments: [user])
        var owners: Set<String> = [user]
        for handle in handles {
            if let owner = try String.fetchOne(
                db, sql: "SELECT user_id FROM account_handles WHERE handle = ?", arguments: [handle])
            {
                owners.insert(owner)
            }
        }
        try db.execute(sql: "DELETE FROM account_handles WHERE user_id = ?", arguments: [user])
        for handle in handles {
            try db.execute(
                sql: "INSERT OR REPLACE INTO account_handles (handle, user_id) VALUES (?, ?)",
                arguments: [handle, user])
        }
        var viewers: Set<String> = []
        for handle in Set(released + handles) {
            viewers.formUnion(
                try String.fetchAll(
                    db, sql: "SELECT user_id FROM contact_handles WHERE handle = ?", arguments: [handle]))
        }
        for viewer in viewers.sorted() {
            try renameCounterparties(db, of: viewer, among: owners, at: at)
        }
    }

    /// The name fields of a payment or request item of `viewer` with `counterparty`,
    /// remembering the counterparty (server side only) so the name can follow changes.
    static func name(
        _ db: Database, _ viewer: String, _ kind: AppStateUpdates.Kind, _ id: String,
        _ counterparty: AppStateUpdates.Counterparty
    ) throws -> [String: JSONValue] {
        try db.execute(
            sql: """
                INSERT INTO counterparties (user_id, kind, item_id, counterparty, handle) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id, kind, item_id) DO UPDATE SET counterparty = excluded.counterparty,
                handle = coalesce(excluded.handle, handle)
                """, arguments: [viewer, kind.rawValue, id, counterparty.userID, counterparty.handle])
        let handle = try String.fetchOne(
            db, sql: "SELECT handle FROM counterparties WHERE user_id = ? AND kind = ? AND item_id = ?",
            arguments: [viewer, kind.rawValue, id])
        return try name(db, viewer, counterparty: counterparty.userID, handle: handle)
    }

    /// The viewer's name for the owner of an account: their first contact (by id) with one
    /// of its handles, else `handle` (the viewer's own words), else null.
    private static func name(_ db: Database, _ viewer: String, counterparty: String, handle: String?) throws
        -> [String: JSONValue]
    {
        let contact = try Row.fetchOne(
            db,
            sql: """
                SELECT c.contact_id, c.name FROM contact_handles h
                JOIN contacts c ON c.user_id = h.user_id AND c.contact_id = h.contact_id
                JOIN account_handles a ON a.handle = h.handle
                WHERE h.user_id = ? AND a.user_id = ? ORDER BY c.contact_id LIMIT 1
                """, arguments: [viewer, counterparty])
        guard let contact else {
            return ["counterpartyName": handle.map(JSONValue.string) ?? .null, "counterpartyContact": .null]
        }
        return ["counterpartyName": .string(contact["name"]), "counterpartyContact": .string(contact["contact_id"])]
    }

    /// Renames the viewer's payments and requests with the owners of any of `handles`
    /// (a contact of the viewer's gained or lost them).
    private static func renameCounterparties(_ db: Database, of viewer: String, owningAny handles: [String], at: String)
        throws
    {
        var owners: Set<String> = []
        for handle in Set(handles) {
            if let owner = try String.fetchOne(
                db, sql: "SELECT user_id FROM account_handles WHERE handle = ?", arguments: [handle])
            {
                owners.insert(owner)
            }
        }
        try renameCounterparties(db, of: viewer, among: owners, at: at)
    }

    /// Writes again the viewer's items with one of `counterparties` whose name changed.
    private static func renameCounterparties(
        _ db: Database, of viewer: String, among counterparties: Set<String>, at: String
    ) throws {
        for counterparty in counterparties.sorted() {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.kind, p.item_id, p.handle, i.body FROM counterparties p
                    JOIN items i ON i.user_id = p.user_id AND i.kind = p.kind AND i.item_id = p.item_id
                    WHERE p.user_id = ? AND p.counterparty = ? ORDER BY p.kind, p.item_id
                    """, arguments: [viewer, counterparty])
            for row in rows {
                let names = try name(db, viewer, counterparty: counterparty, handle: row["handle"])
                guard
                    case .object(let fields) = try JSONDecoder().decode(
                        JSONValue.self, from: Data((row["body"] as String).utf8)),
                    let kind = AppStateUpdates.Kind(rawValue: row["kind"]),
                    names.contains(where: { fields[$0.key] != $0.value })
                else { continue }
                let id: String = row["item_id"]
                try recordChange(db, viewer, kind.rawValue, id, try merge(db, viewer, kind, id, names), at)
            }
        }
    }

    /// Migration: a version per contact (kept after a deletion) and the counterparties
    /// of payments and requests, moved out of the items (which served their user ids),
    /// and account ids removed from what the change feed still holds.
    static func migrateToVersionedContacts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE contact_versions (
                    user_id TEXT NOT NULL, contact_id TEXT NOT NULL, version INTEGER NOT NULL,
                    PRIMARY KEY (user_id, contact_id));
                CREATE TABLE counterparties (
                    user_id TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL, counterparty TEXT NOT NULL,
                    handle TEXT, PRIMARY KEY (user_id, kind, item_id));
                CREATE INDEX counterparties_by_user ON counterparties (user_id, counterparty);
                """)
        let kinds = [AppStateUpdates.Kind.payment, .paymentRequest, .contact].map(\.rawValue)
        for table in ["items", "changes"] {
            let key = table == "items" ? "rowid" : "seq"
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(key) AS row_key, user_id, kind, item_id, body FROM \(table) WHERE kind IN (?, ?, ?)",
                arguments: StatementArguments(kinds))
            for row in rows {
                guard
                    case .object(var fields) = try JSONDecoder().decode(
                        JSONValue.self, from: Data((row["body"] as String).utf8))
                else { continue }
                let counterparty = fields.removeValue(forKey: "counterparty")
                let account = fields.removeValue(forKey: "userID")
                guard counterparty != nil || account != nil else { continue }
                if table == "items", let user = counterparty?.stringValue, !user.isEmpty {
                    try db.execute(
                        sql:
                            "INSERT OR IGNORE INTO counterparties (user_id, kind, item_id, counterparty) VALUES (?, ?, ?, ?)",
                        arguments: [row["user_id"], row["kind"], row["item_id"], user])
                    fields.merge(try name(db, row["user_id"], counterparty: user, handle: nil)) { _, name in name }
                }
                try db.execute(
                    sql: "UPDATE \(table) SET body = ? WHERE \(key) = ?",
                    arguments: [
                        String(decoding: CanonicalJSON.encode(JSONValue.object(fields)), as: UTF8.self), row["row_key"],
                    ])
            }
        }
    }
}
