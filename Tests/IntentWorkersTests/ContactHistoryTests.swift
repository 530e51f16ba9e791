import ContactResolution
import IntentResolution
import Testing

@testable import PipelineTools

/// `intentctl replay resolve` rebuilds each user's contact book as the resolve worker
/// held it: a replayed older record, which the worker ignored, made no book.
@Suite("Replay resolve's contact history skips what the resolve worker ignored")
struct ContactHistoryTests {
    @Test("a record older than its contact's version makes no book; a newer one does")
    func skipsReplays() {
        let old = Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@old.example"])
        let new = Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@new.example"])
        var history = ContactHistory()
        // Deleted at 3, then the captured records of 1 and 2 appended again: no book had them.
        history.apply(.delete(userID: "alice", contactID: "sunbo", version: 3))
        history.apply(.upsert(userID: "alice", contact: old, version: 1))
        history.apply(.upsert(userID: "alice", contact: new, version: 2))
        #expect(history.book(of: "alice", version: ContactBookVersion.of([old])) == nil)
        #expect(history.book(of: "alice", version: ContactBookVersion.of([new])) == nil)
        // Added again at 4: that book is there.
        history.apply(.upsert(userID: "alice", contact: new, version: 4))
        #expect(history.book(of: "alice", version: ContactBookVersion.of([new])) == [new])
        // An older tombstone replayed: no empty book after it (the empty book is every user's first).
        history.apply(.upsert(userID: "bob", contact: old, version: 7))
        history.apply(.delete(userID: "bob", contactID: "sunbo", version: 6))
        history.apply(.upsert(userID: "bob", contact: new, version: 8))
        #expect(history.book(of: "bob", version: ContactBookVersion.of([new])) == [new])
    }
}
