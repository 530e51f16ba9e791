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

@Suite("App state: people by their names in each user's contacts")
struct AppStateContactsTests {
    let sunbo = Contact(id: "c-sb", displayName: "孙波", handles: ["SunBo@Example.cn"])

    @Test("a contact names the account one of its handles opened, whichever arrives first")
    func contactMeetsAccount() async throws {
        let store = try AppStateStore(path: ":memory:")
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo)))
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == .null)
        // The account opens later, with the handle written differently: the same handle.
        let before = try await store.cursor(of: "alice")
        #expect(try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"])) == nil)
        let named = try #require(try await contacts(of: "alice", in: store)["c-sb"])
        #expect(named["userID"] == "sunbo")
        #expect(named["name"] == "孙波")
        // The page learns it live: a change of kind contact after the cursor it had.
        let page = try await store.changes(of: "alice", since: before)
        #expect(page.changes.map(\.kind) == ["contact"])
        #expect(page.changes.first?.item.objectValue?["userID"] == "sunbo")

        // Account first, then the contact: named at once.
        #expect(try await store.apply(contact: .upsert(userID: "carol", contact: sunbo)))
        #expect(try await contacts(of: "carol", in: store)["c-sb"]?["userID"] == "sunbo")
        // Alice's contacts are hers alone.
        #expect(try await contacts(of: "sunbo", in: store).isEmpty)
    }

    @Test("the same contact again changes nothing; a rename, a lost handle and a deletion each do")
    func contactChanges() async throws {
        let store = try AppStateStore(path: ":memory:")
        #expect(try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"])) == nil)
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: sunbo)))
        #expect(try await !store.apply(contact: .upsert(userID: "alice", contact: sunbo)))
        var renamed = sunbo
        renamed.displayName = "波波"
        #expect(try await store.apply(contact: .upsert(userID: "alice", contact: renamed)))
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["name"] == "波波")
        // The account reopens (a new version) without that handle: the contact no longer names it.
        #expect(
            try await store.apply(account: accountOpened("sunbo", handles: ["+86 139 0000 0000"], version: 2)) == nil)
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == .null)
        let before = try await store.cursor(of: "alice")
        #expect(try await store.apply(contact: .delete(userID: "alice", contactID: "c-sb")))
        #expect(try await contacts(of: "alice", in: store).isEmpty)
        let page = try await store.changes(of: "alice", since: before)
        #expect(page.changes.first?.item == .object(["id": "c-sb", "deleted": true]))
        #expect(try await !store.apply(contact: .delete(userID: "alice", contactID: "c-sb")))
    }

    @Test("a handle moves to another account only once released: colliding and replayed openings change nothing")
    func handleMoves() async throws {
        let store = try AppStateStore(path: ":memory:")
        try await store.apply(contact: .upsert(userID: "alice", contact: sunbo))
        #expect(try await store.apply(account: accountOpened("sunbo", handles: ["sunbo@example.cn"])) == nil)
        // Another account claiming the handle (written differently) while sunbo holds it: ignored.
        #expect(
            try await store.apply(account: accountOpened("sunbo-new", handles: ["SUNBO@example.cn"]))
                == .handleTaken(handle: "sunbo@example.cn", owner: "sunbo"))
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == "sunbo")
        // Sunbo closes (version 2): the handle is released, and the next opening with it takes it.
        #expect(try await store.apply(account: LedgerEvent.closing(userID: "sunbo", version: 2)) == nil)
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == .null)
        #expect(
            try await store.apply(account: accountOpened("sunbo-new", handles: ["sunbo@example.cn"], version: 2))
                == nil)
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == "sunbo-new")
        // Sunbo's old opening at version 1, under another id (the same id is already applied):
        // stale, and the handle stays where it is.
        var replayed = accountOpened("sunbo", handles: ["sunbo@example.cn"])
        replayed.id = "replayed"
        #expect(
            try await store.apply(account: replayed) == .staleVersion(userID: "sunbo", version: 1, current: 2))
        #expect(try await contacts(of: "alice", in: store)["c-sb"]?["userID"] == "sunbo-new")
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
