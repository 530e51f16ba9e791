import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Testing

@Suite("Turns and the contacts directory")
struct TurnAndDirectoryTests {
    @Test("a repeated or older turn is ignored with a reason; a newer one is resolved")
    func turns() throws {
        var tracker = TurnTracker()
        #expect(tracker.admit(userID: "u", intentID: "i", turn: 1) == .resolve)
        guard case .ignore(let repeated) = tracker.admit(userID: "u", intentID: "i", turn: 1) else {
            throw TestFailure("a repeat was resolved again")
        }
        #expect(repeated.contains("repeat"))
        #expect(tracker.admit(userID: "u", intentID: "i", turn: 3) == .resolve)
        guard case .ignore(let older) = tracker.admit(userID: "u", intentID: "i", turn: 2) else {
            throw TestFailure("an older turn was resolved")
        }
        #expect(older.contains("older"))
        // The same intent id of another user is another intent.
        #expect(tracker.admit(userID: "v", intentID: "i", turn: 1) == .resolve)
    }

    @Test("once resolved, later turns of the intent are not resolved again")
    func afterResolution() throws {
        var tracker = TurnTracker()
        #expect(tracker.admit(userID: "u", intentID: "i", turn: 2) == .resolve)
        tracker.markResolved(userID: "u", intentID: "i", turn: 2)
        guard case .ignore(let reason) = tracker.admit(userID: "u", intentID: "i", turn: 3) else {
            throw TestFailure("resolved twice")
        }
        #expect(reason.contains("already resolved at turn 2"))
    }

    @Test("the tracker is bounded and forgets the oldest intents first")
    func bounded() {
        var tracker = TurnTracker(capacity: 3)
        for index in 0..<10 { _ = tracker.admit(userID: "u", intentID: "i\(index)", turn: 1) }
        #expect(tracker.count == 3)
        #expect(tracker.admit(userID: "u", intentID: "i9", turn: 1) != .resolve)
        #expect(tracker.admit(userID: "u", intentID: "i0", turn: 1) == .resolve)
    }

    @Test("upserts replace, tombstones remove, and replaying the same records rebuilds the same state")
    func directory() throws {
        let records: [(key: [UInt8], value: [UInt8]?)] = [
            upsert("u1", Contact(id: "a", displayName: "Brandon Lee")),
            upsert("u1", Contact(id: "b", displayName: "Brandon Smith")),
            upsert("u2", Contact(id: "a", displayName: "小明")),
            upsert("u1", Contact(id: "a", displayName: "Robert Johnson")),
            (ContactRecord.key(userID: "u1", contactID: "b"), nil),
        ]
        var directory = ContactDirectory()
        for record in records { directory.apply(try ContactRecord.decode(key: record.key, value: record.value)) }
        #expect(directory.userCount == 2)
        #expect(directory.contactCount == 2)
        let book = directory.book(for: "u1")
        #expect(book.resolver.resolve("Bob").candidates == ["a"])
        #expect(book.resolver.resolve("Brandon Smith").outcome == .unsupported)
        // Users never see each other's contacts.
        #expect(directory.book(for: "u2").resolver.resolve("Bob").outcome == .unsupported)
        #expect(directory.book(for: "nobody").count == 0)

        var rebuilt = ContactDirectory()
        for record in records { rebuilt.apply(try ContactRecord.decode(key: record.key, value: record.value)) }
        #expect(rebuilt.book(for: "u1").contact(id: "a") == book.contact(id: "a"))
        #expect(rebuilt.contactCount == directory.contactCount)
    }

    @Test("bad contact records are refused with a machine-readable reason")
    func badRecords() {
        let good = upsert("u1", Contact(id: "a", displayName: "A"))
        #expect(throws: EventDecodingError(.schemaInvalid, field: "key", "expected the key [\"userID\",\"contactID\"]"))
        {
            try ContactRecord.decode(key: Array("u1/a".utf8), value: good.value)
        }
        let mismatched = ContactRecord.key(userID: "u1", contactID: "other")
        #expect(reason { try ContactRecord.decode(key: mismatched, value: good.value) } == .schemaInvalid)
        #expect(reason { try ContactRecord.decode(key: good.key, value: Array("{".utf8)) } == .unparseable)
        let wrongType = EventEnvelope(
            id: "x", source: "/t", type: "intent.smoke.ping.v1", time: fixedNow, userID: "u1", conversationID: "c",
            data: .object([:]))
        #expect(reason { try ContactRecord.decode(key: good.key, value: wrongType.encoded()) } == .unknownType)
    }

    private func upsert(_ user: String, _ contact: Contact) -> (key: [UInt8], value: [UInt8]?) {
        (
            ContactRecord.key(userID: user, contactID: contact.id),
            ContactRecord.upsertEvent(userID: user, contact: contact, version: nil, source: "/test", time: fixedNow)
                .encoded()
        )
    }

    private func reason(_ body: () throws -> ContactRecord) -> EventDecodingError.Reason? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? EventDecodingError)?.reason
        }
    }
}
