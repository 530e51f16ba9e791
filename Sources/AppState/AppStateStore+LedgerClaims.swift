import GRDB
import Payments

/// The ledger's fencing as the page shows money (``LedgerOwnership``, the rule the deciding
/// ledger and the audit apply): each ledger partition's latest claim lives in the database,
/// written in the same transaction as the balances it guards, and an event a payments member
/// wrote under a claim that is no longer its partition's latest (a member that stalled past
/// its session and resumed) moves no balance and shows no payment. Without it the page showed
/// a zombie's post and the new owner's void of the same hold both.
extension AppStateStore {
    static let ledgerClaimsMigration = "v7: ledger claims"

    /// The row that says the database read the ledger before claims were kept.
    private static let claimsUnknownPartition = -1

    static func createLedgerClaims(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE ledger_owners (partition INTEGER PRIMARY KEY, owner TEXT NOT NULL)")
        // A database that applied events before this version never saw the claims already
        // read: each partition's next stamped event names its owner (``admits(_:_:)``).
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM applied_events") ?? 0 > 0 {
            try db.execute(
                sql: "INSERT INTO ledger_owners (partition, owner) VALUES (?, '')",
                arguments: [claimsUnknownPartition])
        }
    }

    /// Whether `event` counts under the claims applied so far (taking a claim that counts,
    /// as every reader of the ledger does); inside the transaction that applies it.
    static func admits(_ db: Database, _ event: LedgerEvent) throws -> Bool {
        var ownership = LedgerOwnership()
        let stamped = event.owner.flatMap(LedgerOwner.init)
        if let stamped {
            let stored = try String.fetchOne(
                db, sql: "SELECT owner FROM ledger_owners WHERE partition = ?", arguments: [stamped.partition])
            if let owner = stored.flatMap(LedgerOwner.init) {
                ownership.take(owner)
            } else if event.kind != .ownerClaimed, try claimsUnknown(db) {
                // Read before claims were kept: the first writer seen since is the owner.
                ownership.take(stamped)
                try store(stamped, db)
            }
        }
        guard ownership.admit(event) == nil else { return false }
        if event.kind == .ownerClaimed, let stamped { try store(stamped, db) }
        return true
    }

    private static func claimsUnknown(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM ledger_owners WHERE partition = ?)",
            arguments: [claimsUnknownPartition]) ?? false
    }

    private static func store(_ owner: LedgerOwner, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO ledger_owners (partition, owner) VALUES (?, ?)
                ON CONFLICT (partition) DO UPDATE SET owner = excluded.owner
                """, arguments: [owner.partition, owner.description])
    }
}
