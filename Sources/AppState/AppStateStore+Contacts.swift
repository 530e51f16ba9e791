public import Foundation
import GRDB
import IntentEvents
public import IntentResolution
import Intents
public import Payments

/// Names instead of user ids: the app shows "to 孙波", not "to sunbo". A
/// user's contact is matched to a payment account by handle, exactly as a
/// payee is (``Person/normalizedHandle(_:)``), so the name on a payment is
/// the contact whose account it credited. Each contact is an item of kind
/// `contact` (`{id, name, userID}`; `userID` null while no account has one
/// of its handles), and changes whenever the contact or the matching
/// account does; a deleted contact is a change `{id, deleted: true}`.
extension AppStateStore {
    /// Applies a record of the contacts topic (already checked to come from a contacts
    /// service); false when it changes nothing the user sees.
    /// - Parameter at: When it happened, for the change feed.
    @discardableResult
    public func apply(contact record: ContactRecord, at time: Date = Date()) async throws -> Bool {
        defer { signal.changed() }
        let at = EventTime.format(time)
        return try await database.write { db in
            switch record {
            case .upsert(let user, let contact):
                let handles = (contact.handles ?? []).map(Person.normalizedHandle)
                let handlesText = String(decoding: CanonicalJSON.encode(handles), as: UTF8.self)
                let existing = try Row.fetchOne(
                    db, sql: "SELECT name, handles FROM contacts WHERE user_id = ? AND contact_id = ?",
                    arguments: [user, contact.id])
                if let existing, existing["name"] == contact.displayName, existing["handles"] == handlesText {
                    return false
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
                return try Self.refreshContact(db, user, contact.id, at: at, force: true)
            case .delete(let user, let contactID):
                try db.execute(
                    sql: "DELETE FROM contacts WHERE user_id = ? AND contact_id = ?", arguments: [user, contactID])
                guard db.changesCount == 1 else { return false }
                try db.execute(
                    sql: "DELETE FROM contact_handles WHERE user_id = ? AND contact_id = ?",
                    arguments: [user, contactID])
                try db.execute(
                    sql: "DELETE FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
                    arguments: [user, AppStateUpdates.Kind.contact.rawValue, contactID])
                try Self.recordChange(
                    db, user, AppStateUpdates.Kind.contact.rawValue, contactID,
                    .object(["id": .string(contactID), "deleted": .bool(true)]), at)
                return true
            }
        }
    }

    /// Applies an account opening or closing of the accounts topic (already checked to come
    /// from the ledger operator) under the directory's rules (``AccountDirectory``): versions
    /// only grow, and a handle another open account holds is not taken. Returns why it was
    /// ignored, or nil (applied, or already applied). Contacts whose account changes are renamed.
    @discardableResult
    public func apply(account event: LedgerEvent, at time: Date = Date()) async throws -> AccountDirectory.Refusal? {
        defer { signal.changed() }
        let at = EventTime.format(time)
        return try await database.write { db -> AccountDirectory.Refusal? in
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
    /// were applied, so no handle is another's. Renames the contacts it matches or no
    /// longer matches.
    static func openAccount(_ db: Database, _ user: String, handles: [String], at: String) throws {
        let handles = handles.map(Person.normalizedHandle)
        let released = try String.fetchAll(
            db, sql: "SELECT handle FROM account_handles WHERE user_id = ?", arguments: [user])
        try db.execute(sql: "DELETE FROM account_handles WHERE user_id = ?", arguments: [user])
        for handle in handles {
            try db.execute(
                sql: "INSERT OR REPLACE INTO account_handles (handle, user_id) VALUES (?, ?)",
                arguments: [handle, user])
        }
        var affected: Set<[String]> = []
        for handle in Set(released + handles) {
            for row in try Row.fetchAll(
                db, sql: "SELECT user_id, contact_id FROM contact_handles WHERE handle = ?", arguments: [handle])
            {
                affected.insert([row["user_id"], row["contact_id"]])
            }
        }
        for contact in affected.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            try refreshContact(db, contact[0], contact[1], at: at, force: false)
        }
    }

    /// Writes the contact's item as it now is (its account: the first of its handles that
    /// one has); unless `force`, only when its account changed. True if written.
    @discardableResult
    private static func refreshContact(
        _ db: Database, _ user: String, _ contactID: String, at: String, force: Bool
    ) throws -> Bool {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT name, handles FROM contacts WHERE user_id = ? AND contact_id = ?",
                arguments: [user, contactID])
        else { return false }
        let handles = try JSONDecoder().decode([String].self, from: Data((row["handles"] as String).utf8))
        var account: JSONValue = .null
        for handle in handles {
            if let owner = try String.fetchOne(
                db, sql: "SELECT user_id FROM account_handles WHERE handle = ?", arguments: [handle])
            {
                account = .string(owner)
                break
            }
        }
        let kind = AppStateUpdates.Kind.contact
        if !force,
            let existing = try String.fetchOne(
                db, sql: "SELECT body FROM items WHERE user_id = ? AND kind = ? AND item_id = ?",
                arguments: [user, kind.rawValue, contactID]),
            case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(existing.utf8)),
            fields["userID"] == account
        {
            return false
        }
        let body: [String: JSONValue] = ["id": .string(contactID), "name": .string(row["name"]), "userID": account]
        let merged = try merge(db, user, kind, contactID, body)
        try recordChange(db, user, kind.rawValue, contactID, merged, at)
        return true
    }
}
