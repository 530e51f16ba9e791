import Intents
import Payments
import Testing

/// The rules every reader of accounts applies (``AccountDirectory``), without a broker:
/// versions only grow per user, and a normalized handle belongs to one open account
/// until a closing or a new version releases it.
@Suite("Accounts: one owner per handle, versions only grow")
struct AccountDirectoryTests {
    func opening(_ user: String, _ handles: [String], version: Int = 1, verified: Bool = true) -> LedgerEvent {
        LedgerEvent.opening(userID: user, handles: handles, verified: verified, version: version)[0]
    }

    @Test("an opening claiming a held handle, however written, is ignored whole and names the owner")
    func collision() {
        var directory = AccountDirectory()
        #expect(directory.apply(opening("bob", ["bob@example.com", "+1 555 0101"])) == nil)
        let mallory = opening("mallory", ["mallory@evil.example", " BOB@Example.com"])
        #expect(directory.apply(mallory) == .handleTaken(handle: "bob@example.com", owner: "bob"))
        #expect(directory.account(handle: "bob@example.com")?.userID == "bob")
        // Whole: Mallory's other handle is not taken either, and she has no account.
        #expect(directory.account(handle: "mallory@evil.example") == nil)
        #expect(directory.accounts["mallory"] == nil)
        #expect(directory.versions["mallory"] == nil)
        // A phone number written with other punctuation is the same handle.
        #expect(
            directory.apply(opening("eve", ["+1 (555) 01-01"])) == .handleTaken(handle: "+15550101", owner: "bob"))
        #expect(directory.refusal(of: mallory)?.reason == "accountHandleTaken")
    }

    @Test("a closing releases the handles, and the next opening with them takes them")
    func closingReleases() {
        var directory = AccountDirectory()
        directory.apply(opening("bob", ["bob@example.com"]))
        #expect(directory.apply(LedgerEvent.closing(userID: "bob", version: 2)) == nil)
        #expect(directory.accounts["bob"] == nil)
        #expect(directory.account(handle: "bob@example.com") == nil)
        #expect(directory.apply(opening("mallory", ["bob@example.com"])) == nil)
        #expect(directory.account(handle: "bob@example.com")?.userID == "mallory")
        // Both held it, at different times: what the audit checks a payment against.
        #expect(directory.hasHeld("Bob@example.com", "bob"))
        #expect(directory.hasHeld("bob@example.com", "mallory"))
        #expect(!directory.hasHeld("bob@example.com", "eve"))
    }

    @Test("a new version replaces the account: handles it no longer lists are free")
    func newVersion() {
        var directory = AccountDirectory()
        directory.apply(opening("bob", ["bob@example.com", "+1 555 0101"]))
        #expect(directory.apply(opening("bob", ["+1 555 0101"], version: 2, verified: false)) == nil)
        #expect(
            directory.accounts["bob"]
                == AccountDirectory.Account(
                    userID: "bob", handles: ["+1 555 0101"], verified: false, version: 2))
        #expect(directory.apply(opening("carol", ["bob@example.com"])) == nil)
    }

    @Test("an older or equal version, or none, is ignored: a replayed opening or closing changes nothing")
    func replays() {
        var directory = AccountDirectory()
        let first = opening("bob", ["bob@example.com"])
        directory.apply(first)
        directory.apply(LedgerEvent.closing(userID: "bob", version: 2))
        // The captured first opening, after the close: the handle stays released.
        #expect(directory.apply(first) == .staleVersion(userID: "bob", version: 1, current: 2))
        #expect(directory.account(handle: "bob@example.com") == nil)
        // After another user took the handle, Bob's old opening cannot take it back.
        directory.apply(opening("mallory", ["bob@example.com"]))
        #expect(directory.apply(first)?.reason == "accountVersionStale")
        #expect(directory.account(handle: "bob@example.com")?.userID == "mallory")
        // Equal version, other contents: ignored too.
        #expect(
            directory.apply(opening("mallory", ["m@example.com"]))
                == .staleVersion(userID: "mallory", version: 1, current: 1))
        // A replayed closing does not close the re-opened account.
        directory.apply(opening("bob", ["bob2@example.com"], version: 3))
        #expect(directory.apply(LedgerEvent.closing(userID: "bob", version: 2)) != nil)
        #expect(directory.accounts["bob"]?.version == 3)
        // Unversioned: at 0, below every account.
        var unversioned = opening("dave", ["dave@example.com"])
        unversioned.accountVersion = nil
        #expect(directory.apply(unversioned) == .staleVersion(userID: "dave", version: 0, current: 0))
    }

    @Test("a ledger snapshot keeps every user's version: a replay after a restore is still ignored")
    func snapshotKeepsVersions() throws {
        var ledger = Ledger()
        try ledger.apply(opening("bob", ["bob@example.com"]))
        try ledger.apply(LedgerEvent.closing(userID: "bob", version: 2))
        try ledger.apply(opening("carol", ["carol@example.com"], version: 4))
        var restored = try Ledger(snapshotBytes: ledger.snapshotBytes())
        #expect(restored.directory.versions == ["bob": 2, "carol": 4])
        #expect(restored.accounts["carol"]?.version == 4)
        var replayed = opening("bob", ["bob@example.com"])
        replayed.id = "another-id"
        try restored.apply(replayed)
        #expect(restored.accounts["bob"] == nil)
        #expect(restored.account(handle: "bob@example.com") == nil)
    }
}
