import AppState
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Payments
import Testing

/// An account opening at `version`, as the accounts topic carries it.
func accountOpened(_ user: String, handles: [String], version: Int = 1) -> LedgerEvent {
    LedgerEvent.opening(userID: user, handles: handles, version: version)[0]
}

/// The user's contact items, by contact id.
func contacts(of user: String, in store: AppStateStore) async throws -> [String: [String: JSONValue]] {
    let items = try await store.snapshot(of: user).objectValue?["contacts"]?.arrayValue ?? []
    var byID: [String: [String: JSONValue]] = [:]
    for case .object(let fields) in items { byID[fields["id"]?.stringValue ?? ""] = fields }
    return byID
}

/// A transfer of 10 CNY as the ledger records it: the hold of `payer`'s money for `payee`
/// (to the handle the payer confirmed), or its post (the payee's "received" item).
func transferEvent(_ kind: LedgerEvent.Kind, _ id: String, payer: String, payee: String, handle: String? = nil)
    -> EventEnvelope
{
    let (from, to) =
        kind == .hold ? (Ledger.available(payer), Ledger.held(payer)) : (Ledger.held(payer), Ledger.available(payee))
    return envelope(
        "\(kind.rawValue)-\(id)", type: LedgerEvent.type, user: payer, intent: "i-\(id)",
        LedgerEvent(
            id: "\(kind.rawValue)-\(id)", kind: kind, userID: payer, intentID: "i-\(id)", transferID: id,
            entries: [
                LedgerEntry(account: from, side: .debit, amount: cny("10")),
                LedgerEntry(account: to, side: .credit, amount: cny("10")),
            ], counterpartyUserID: payee, counterpartyAccount: handle, amount: cny("10")))
}

/// The user's payment items, by id.
func payments(of user: String, in store: AppStateStore) async throws -> [String: [String: JSONValue]] {
    let items = try await store.snapshot(of: user).objectValue?["payments"]?.arrayValue ?? []
    var byID: [String: [String: JSONValue]] = [:]
    for case .object(let fields) in items { byID[fields["id"]?.stringValue ?? ""] = fields }
    return byID
}

@Suite("App state: people by their names in each user's contacts, and no account ids")
struct AppStateContactsTests {
    let sunbo = Contact(id: "c-sb", displayName: "孙波", handles: ["SunBo@Example.cn"])

    @Test("a contact item is its id and name only: whether its handle has an account is not told, nor changes it")
    func noAccountDiscovery() async throws {
        let store = try AppStateStore(path: ":memory:")
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 1)) == .changed)
        #expect(try await contacts(of: "alice", in: store)["c-sb"] == ["id": "c-sb", "name": "孙波"])
        // The account opens later, with the handle written differently: nothing changes for Alice.
        let before = try await store.cursor(of: "alice")
        #expect(try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"])) == nil)
        #expect(try await store.changes(of: "alice", since: before).changes.isEmpty)
        #expect(try await contacts(of: "alice", in: store)["c-sb"] == ["id": "c-sb", "name": "孙波"])
        // Account first, then the contact: the same item.
        #expect(try await store.apply(contact: .upsert(userID: "carol", contact: sunbo, version: 1)) == .changed)
        #expect(try await contacts(of: "carol", in: store)["c-sb"] == ["id": "c-sb", "name": "孙波"])
        // Alice's contacts are hers alone.
        #expect(try await contacts(of: "sunbo", in: store).isEmpty)
    }

    @Test("a payment names its counterparty on the server: the viewer's contact, else their own handle, else null")
    func counterpartyNames() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"]))
        try await store.apply(account: accountOpened("alice", handles: ["+86 138 0000 0001"]))
        try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 1))
        try await store.apply(transferEvent(.hold, "t1", payer: "alice", payee: "sunbo", handle: "sunbo@example.cn"))
        try await store.apply(transferEvent(.post, "t1", payer: "alice", payee: "sunbo"))
        let sent = try #require(try await payments(of: "alice", in: store)["t1"])
        #expect(sent["counterpartyName"] == "孙波")
        #expect(sent["counterpartyContact"] == "c-sb")
        #expect(sent["counterparty"] == nil)
        // Sunbo has no contact for Alice: the payer is not named (and never by user id).
        let received = try #require(try await payments(of: "sunbo", in: store)["t1"])
        #expect(received["counterpartyName"] == .null)
        #expect(received["counterpartyContact"] == .null)

        // Sunbo adds Alice: the received payment is named, live.
        var cursor = try await store.cursor(of: "sunbo")
        let alice = Contact(id: "c-a", displayName: "爱丽丝", handles: ["+86 138 0000 0001"])
        #expect(try await store.apply(contact: .upsert(userID: "sunbo", contact: alice, version: 1)) == .changed)
        let page = try await store.changes(of: "sunbo", since: cursor)
        #expect(page.changes.map(\.kind).sorted() == ["contact", "payment"])
        #expect(try await payments(of: "sunbo", in: store)["t1"]?["counterpartyName"] == "爱丽丝")

        // Alice renames 孙波, then deletes him: the name follows, then falls back to the handle she paid.
        var renamed = sunbo
        renamed.displayName = "波波"
        try await store.apply(contact: .upsert(userID: "alice", contact: renamed, version: 2))
        #expect(try await payments(of: "alice", in: store)["t1"]?["counterpartyName"] == "波波")
        cursor = try await store.cursor(of: "alice")
        #expect(try await store.apply(contact: .delete(userID: "alice", contactID: "c-sb", version: 3)) == .changed)
        #expect(try await store.changes(of: "alice", since: cursor).changes.count == 2)
        let unnamed = try #require(try await payments(of: "alice", in: store)["t1"])
        #expect(unnamed["counterpartyName"] == "sunbo@example.cn")
        #expect(unnamed["counterpartyContact"] == .null)
    }

    @Test("a replayed older contact record or tombstone changes nothing; equal versions neither")
    func versions() async throws {
        let store = try AppStateStore(path: ":memory:")
        var moved = sunbo
        moved.displayName = "孙波 (new)"
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 1)) == .changed)
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: moved, version: 2)) == .changed)
        let cursor = try await store.cursor(of: "alice")
        #expect(
            try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 1))
                == .stale(version: 1, seen: 2))
        #expect(
            try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 2))
                == .stale(version: 2, seen: 2))
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo)) == .stale(version: 0, seen: 2))
        #expect(try await store.changes(of: "alice", since: cursor).changes.isEmpty)
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["name"] == "孙波 (new)")
        // Deleted at 3: the record of 2 replayed does not bring it back (the version outlives the row).
        #expect(try await store.apply(contact: .delete(userID: "alice", contactID: "c-sb", version: 3)) == .changed)
        #expect(
            try await store.apply(contact: .upsert(userID: "alice", contact: moved, version: 2))
                == .stale(version: 2, seen: 3))
        #expect(try await contacts(of: "alice", in: store).isEmpty)
        // Added again at 4: the tombstone of 3 replayed does not delete it.
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 4)) == .changed)
        #expect(
            try await store.apply(contact: .delete(userID: "alice", contactID: "c-sb", version: 3))
                == .stale(version: 3, seen: 4))
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["name"] == "孙波")
        // The same contact again at a higher version: applied, nothing to show.
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 5)) == .unchanged)
    }

    @Test("a handle moves to another account only once released: colliding and replayed openings rename nothing")
    func handleMoves() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(contact: .upsert(userID: "alice", contact: sunbo, version: 1))
        try await store.apply(transferEvent(.hold, "t1", payer: "alice", payee: "sunbo"))
        try await store.apply(transferEvent(.hold, "t2", payer: "alice", payee: "sunbo-new"))
        func names() async throws -> [JSONValue?] {
            let items = try await payments(of: "alice", in: store)
            return [items["t1"]?["counterpartyName"], items["t2"]?["counterpartyName"]]
        }
        #expect(try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"])) == nil)
        #expect(try await names() == ["孙波", .null])
        // Another account claiming the handle (written differently) while sunbo holds it: ignored.
        #expect(
            try await store.apply(account: accountOpened("sunbo-new", handles: ["SUNBO@example.cn"]))
                == .handleTaken(handle: "sunbo@example.cn", owner: "sunbo"))
        #expect(try await names() == ["孙波", .null])
        // Sunbo closes (version 2): the handle is released, and the next opening with it takes it.
        #expect(try await store.apply(account: LedgerEvent.closing(userID: "sunbo", version: 2)) == nil)
        #expect(try await names() == [.null, .null])
        #expect(
            try await store.apply(account: accountOpened("sunbo-new", handles: ["sunbo@example.cn"], version: 2))
                == nil)
        #expect(try await names() == [.null, "孙波"])
        // Sunbo's old opening at version 1, under another id (the same id is already applied):
        // stale, and the handle stays where it is.
        var replayed = accountOpened("sunbo", handles: ["sunbo@example.cn"])
        replayed.id = "replayed"
        #expect(
            try await store.apply(account: replayed) == .staleVersion(userID: "sunbo", version: 1, current: 2))
        #expect(try await names() == [.null, "孙波"])
    }

    @Test("payments and requests carry the time the ledger recorded them, for the conversation view")
    func paymentTimes() async throws {
        let store = try AppStateStore(path: ":memory:")
        for event in paymentEvents { try await store.apply(event) }
        let expected = JSONValue.string(EventTime.format(t0))
        let payment = try #require(try await store.snapshot(of: "alice").objectValue?["payments"]?.arrayValue?.first)
        #expect(payment.objectValue?["at"] == expected)
        let received = try #require(try await store.snapshot(of: "bob").objectValue?["payments"]?.arrayValue?.first)
        #expect(received.objectValue?["at"] == expected)
    }
}
