import BrokerTestSupport
import Foundation
import GRDB
import IntentEvents
import Payments
import Testing

@testable import AppState

/// The page's balances follow the ledger's fencing (``LedgerOwnership``): a payments
/// member that stalled past its session and resumed writes under a claim another member
/// has since replaced, and what it writes moves no money anyone sees. Found by the
/// simulation (seed 164 at 500 intents: the page showed 19.50 more than the ledger).
@Suite("App state: ledger events under the ledger's claims")
struct AppStateLedgerFencingTests {
    static let first = LedgerOwner(partition: 0, epoch: 1, member: "first")
    static let second = LedgerOwner(partition: 0, epoch: 2, member: "second")

    static func claim(_ owner: LedgerOwner) -> EventEnvelope {
        let event = owner.claimEvent(key: "partition-owner.0.0")
        return envelope(event.id, type: LedgerEvent.type, user: event.userID, event)
    }

    /// Alice's 1,000 CNY deposit (unstamped: the ledger operator's), as the store's tests make it.
    static let deposit = paymentEvents[0]

    /// Alice's 100 CNY to Bob: held, then posted or voided, written under `owner`.
    static func transfer(_ kind: LedgerEvent.Kind, under owner: LedgerOwner, id: String? = nil) -> EventEnvelope {
        let entries: [LedgerEntry] =
            switch kind {
            case .hold:
                [
                    LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: cny("100")),
                    LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: cny("100")),
                ]
            case .post:
                [
                    LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                    LedgerEntry(account: Ledger.available("bob"), side: .credit, amount: cny("100")),
                ]
            default:
                [
                    LedgerEntry(account: Ledger.held("alice"), side: .debit, amount: cny("100")),
                    LedgerEntry(account: Ledger.available("alice"), side: .credit, amount: cny("100")),
                ]
            }
        var event = LedgerEvent(
            id: id ?? "\(kind.rawValue)-\(owner.member)", kind: kind, userID: "alice", intentID: "i1", transferID: "t1",
            entries: entries, counterpartyUserID: "bob", amount: cny("100"))
        event.owner = owner.description
        return envelope(event.id, type: LedgerEvent.type, user: "alice", intent: "i1", event)
    }

    /// (available, held) of `user` in CNY as the page shows them; nil without a balance.
    static func balance(_ store: AppStateStore, _ user: String) async throws -> [String]? {
        let state = try #require(try await store.snapshot(of: user).objectValue)
        guard let balance = state["balances"]?.arrayValue?.first?.objectValue else { return nil }
        return [balance["available"]?.stringValue ?? "-", balance["held"]?.stringValue ?? "-"]
    }

    @Test("a resumed member's post after another member claimed the partition moves nothing; the new owner's void does")
    func zombiePostIsFenced() async throws {
        let store = try AppStateStore(path: ":memory:")
        for event in [
            Self.deposit, Self.claim(Self.first), Self.transfer(.hold, under: Self.first), Self.claim(Self.second),
            // The first member resumes and writes what it decided before it stalled.
            Self.transfer(.post, under: Self.first),
            Self.transfer(.void, under: Self.second),
        ] {
            try await store.apply(event)
        }
        #expect(try await Self.balance(store, "alice") == ["1000", "0"])
        #expect(try await Self.balance(store, "bob") == nil, "Bob was paid by a fenced post")
        let payment = try #require(try await store.snapshot(of: "alice").objectValue?["payments"]?.arrayValue?.first)
        #expect(payment.objectValue?["status"] == .string("cancelled"), "\(payment)")
    }

    @Test("the new owner's event under the id of a fenced one (its void of the same hold) still applies")
    func sameIDAfterFencedCopy() async throws {
        let store = try AppStateStore(path: ":memory:")
        for event in [
            Self.deposit, Self.claim(Self.first), Self.transfer(.hold, under: Self.first), Self.claim(Self.second),
            // Both members decide the void under the id the hold derives; the first one's lands first.
            Self.transfer(.void, under: Self.first, id: "void-t1"),
            Self.transfer(.void, under: Self.second, id: "void-t1"),
        ] {
            try await store.apply(event)
        }
        #expect(try await Self.balance(store, "alice") == ["1000", "0"])
    }

    @Test("a replayed older claim takes nothing over, and an event stamped with no claim read counts for nothing")
    func staleClaimsAndUnclaimedStamps() async throws {
        let store = try AppStateStore(path: ":memory:")
        let replayed = LedgerOwner(partition: 0, epoch: 1, member: "replayed")
        for event in [
            Self.deposit, Self.claim(Self.second), Self.claim(replayed), Self.transfer(.hold, under: replayed),
            // Partition 1 was never claimed: its stamp is nobody's.
            Self.transfer(.hold, under: LedgerOwner(partition: 1, epoch: 1, member: "stray")),
        ] {
            try await store.apply(event)
        }
        #expect(try await Self.balance(store, "alice") == ["1000", "0"])
        try await store.apply(Self.transfer(.hold, under: Self.second))
        #expect(try await Self.balance(store, "alice") == ["900", "100"], "the latest claim's events count")
    }

    @Test("a database that read the ledger before claims were kept takes a partition's next stamp as its owner")
    func upgradedDatabase() async throws {
        let directory = testFileURL("appstate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        do {
            let old = try AppStateStore(path: path, migratedUpTo: AppStateStore.settingsMigration)
            try await old.database.write { db in
                try db.execute(sql: "INSERT INTO applied_events (id) VALUES ('claim-read-before')")
            }
        }
        let store = try AppStateStore(path: path)
        try await store.apply(Self.deposit)
        try await store.apply(Self.transfer(.hold, under: Self.first))
        #expect(try await Self.balance(store, "alice") == ["900", "100"])
        // From then on the rule holds: the next claim fences the first member.
        try await store.apply(Self.claim(Self.second))
        try await store.apply(Self.transfer(.post, under: Self.first))
        try await store.apply(Self.transfer(.void, under: Self.second))
        #expect(try await Self.balance(store, "alice") == ["1000", "0"])
    }
}
