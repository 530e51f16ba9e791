import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Testing

/// Contacts and settings carry a signed version that only grows per key, so a
/// validly signed older record (or tombstone) re-appended to its topic changes
/// nothing: the money would otherwise go to a handle the user has since changed.
@Suite("Directory records are versioned; older ones are ignored")
struct RecordVersionTests {
    static let keys = EventAuthenticator(
        keys: [
            "/contacts/sync": Array(repeating: 0x21, count: 32), "/settings/app": Array(repeating: 0x23, count: 32),
        ])
    let sunbo = Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"])
    let key = ContactRecord.key(userID: "alice", contactID: "sunbo")

    @Test(
        "only a higher version supersedes; unversioned records replace each other until a versioned one was seen",
        arguments: [
            (5, nil, true), (6, 5, true), (5, 5, false), (4, 5, false), (0, 5, false), (0, 0, true), (1, 0, true),
        ] as [(Int64, Int64?, Bool)])
    func supersedes(version: Int64, seen: Int64?, expected: Bool) {
        #expect(RecordVersion.supersedes(version, seen: seen) == expected)
    }

    @Test("a tombstone's version header: absent is unversioned, else a decimal from 1")
    func header() throws {
        #expect(try RecordVersion.parseHeader(nil) == 0)
        #expect(try RecordVersion.parseHeader("1795000000000") == 1_795_000_000_000)
        for bad in ["", "0", "-3", "+3", "1e3", " 7", "99999999999999999999"] {
            let error = #expect(throws: EventDecodingError.self) { try RecordVersion.parseHeader(bad) }
            #expect(error?.field == RecordVersion.header)
        }
        // The CLI's default: milliseconds of the clock.
        #expect(RecordVersion.fromClock(Date(timeIntervalSince1970: 1_795_000_000.25)) == 1_795_000_000_250)
    }

    func signed(_ contact: Contact, version: Int64?) -> (value: [UInt8], signature: EventSignature?) {
        let event = ContactRecord.upsertEvent(
            userID: "alice", contact: contact, version: version, source: "/contacts/sync", time: fixedNow)
        return (event.encoded(), Self.keys.signature(for: event))
    }

    @Test("an upsert's version is in its signed data: read back, and a changed version breaks the signature")
    func upsertVersion() throws {
        let (value, signature) = signed(sunbo, version: 42)
        let data = try #require(try EventEnvelope.decode(value).data.objectValue)
        #expect(data["version"] == .integer(42))
        #expect(data["handles"] == .array(["sunbo@example.cn"]))
        let read = try ContactRecord.decode(
            key: key, value: value, signature: signature, tombstoneSource: nil, authenticator: Self.keys)
        #expect(read == .upsert(userID: "alice", contact: sunbo, version: 42))
        // The same bytes with a higher version written in: the signature no longer matches.
        let bumped = Array(String(decoding: value, as: UTF8.self).replacingOccurrences(of: "42", with: "99").utf8)
        let error = #expect(throws: EventDecodingError.self) {
            try ContactRecord.decode(
                key: key, value: bumped, signature: signature, tombstoneSource: nil, authenticator: Self.keys)
        }
        #expect(error?.reason == .unauthenticated)
        // Unversioned (an older writer): version 0. A version below 1 is refused.
        #expect(try ContactRecord.decode(key: key, value: signed(sunbo, version: nil).value).version == 0)
        let zero = try #require(
            #expect(throws: EventDecodingError.self) {
                try ContactRecord.decode(key: key, value: signed(sunbo, version: 0).value)
            })
        #expect(zero.field == "$.data.version")
    }

    @Test("a tombstone's version is signed: without, with another or with an added header it is refused")
    func tombstoneVersion() throws {
        func decode(_ signature: EventSignature?, _ header: String?) throws -> ContactRecord {
            try ContactRecord.decode(
                key: key, value: nil, signature: signature, tombstoneSource: "/contacts/sync",
                tombstoneVersion: header, authenticator: Self.keys)
        }
        let v7 = Self.keys.signature(
            forCanonical: ContactRecord.deletionMessage(userID: "alice", contactID: "sunbo", version: 7),
            source: "/contacts/sync")
        #expect(try decode(v7, "7") == .delete(userID: "alice", contactID: "sunbo", version: 7))
        let unversioned = Self.keys.signature(
            forCanonical: ContactRecord.deletionMessage(userID: "alice", contactID: "sunbo"), source: "/contacts/sync")
        #expect(try decode(unversioned, nil) == .delete(userID: "alice", contactID: "sunbo", version: 0))
        for (signature, header) in [(v7, nil), (v7, "8"), (unversioned, "9")] as [(EventSignature?, String?)] {
            let error = #expect(throws: EventDecodingError.self) { try decode(signature, header) }
            #expect(error?.reason == .unauthenticated)
        }
    }

    @Test("settings and resets: the version is signed the same way")
    func settingsVersion() throws {
        let event = UserSettingsRecord.event(
            userID: "u1", settings: UserSettings(locale: "ru-RU"), version: 3, source: "/settings/app", time: fixedNow)
        #expect(
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: event.encoded(), signature: Self.keys.signature(for: event),
                tombstoneSource: nil, authenticator: Self.keys)
                == .set(userID: "u1", settings: UserSettings(locale: "ru-RU"), version: 3))
        let reset = Self.keys.signature(
            forCanonical: UserSettingsRecord.resetMessage(userID: "u1", version: 4), source: "/settings/app")
        #expect(
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: nil, signature: reset, tombstoneSource: "/settings/app",
                tombstoneVersion: "4", authenticator: Self.keys) == .reset(userID: "u1", version: 4))
        #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: nil, signature: reset, tombstoneSource: "/settings/app",
                tombstoneVersion: nil, authenticator: Self.keys)
        }
    }

    @Test("the contact directory: a replayed record, tombstone or unversioned record changes no book")
    func contactDirectory() {
        var directory = ContactDirectory()
        var changed = sunbo
        changed.handles = ["sunbo.new@example.cn"]
        #expect(directory.apply(.upsert(userID: "alice", contact: sunbo, version: 1)) == .applied)
        #expect(directory.apply(.upsert(userID: "alice", contact: changed, version: 2)) == .applied)
        // The captured v1 again, and an equal version: ignored.
        #expect(directory.apply(.upsert(userID: "alice", contact: sunbo, version: 1)) == .stale(version: 1, seen: 2))
        #expect(directory.apply(.upsert(userID: "alice", contact: sunbo, version: 2)) == .stale(version: 2, seen: 2))
        #expect(directory.book(for: "alice").contact(id: "sunbo")?.handles == ["sunbo.new@example.cn"])
        // Deleted at v3: the v2 record replayed does not bring it back.
        #expect(directory.apply(.delete(userID: "alice", contactID: "sunbo", version: 3)) == .applied)
        #expect(directory.apply(.upsert(userID: "alice", contact: changed, version: 2)) == .stale(version: 2, seen: 3))
        #expect(directory.book(for: "alice").contact(id: "sunbo") == nil)
        // Added again at v4: the v3 tombstone replayed does not delete it, nor an unversioned one.
        #expect(directory.apply(.upsert(userID: "alice", contact: sunbo, version: 4)) == .applied)
        #expect(
            directory.apply(.delete(userID: "alice", contactID: "sunbo", version: 3)) == .stale(version: 3, seen: 4))
        #expect(directory.apply(.delete(userID: "alice", contactID: "sunbo")) == .stale(version: 0, seen: 4))
        #expect(directory.book(for: "alice").contact(id: "sunbo")?.handles == ["sunbo@example.cn"])
        // Another contact, or another user's, has its own versions.
        #expect(directory.apply(.upsert(userID: "bob", contact: changed, version: 1)) == .applied)
        // Unversioned records (older writers) still replace each other, last wins.
        #expect(directory.apply(.upsert(userID: "carol", contact: sunbo)) == .applied)
        #expect(directory.apply(.upsert(userID: "carol", contact: changed)) == .applied)
        #expect(directory.book(for: "carol").contact(id: "sunbo")?.handles == ["sunbo.new@example.cn"])
    }

    @Test("the settings directory: a replayed setting or reset leaves the newer language")
    func settingsDirectory() {
        var directory = UserSettingsDirectory()
        #expect(directory.apply(.set(userID: "u1", settings: UserSettings(locale: "ru-RU"), version: 1)) == .applied)
        #expect(
            directory.apply(.set(userID: "u1", settings: UserSettings(locale: "zh-Hans-CN"), version: 2)) == .applied)
        #expect(
            directory.apply(.set(userID: "u1", settings: UserSettings(locale: "ru-RU"), version: 1))
                == .stale(version: 1, seen: 2))
        #expect(directory.apply(.reset(userID: "u1", version: 2)) == .stale(version: 2, seen: 2))
        #expect(directory.locale(of: "u1") == "zh-Hans-CN")
        #expect(directory.apply(.reset(userID: "u1", version: 3)) == .applied)
        #expect(
            directory.apply(.set(userID: "u1", settings: UserSettings(locale: "zh-Hans-CN"), version: 2))
                == .stale(version: 2, seen: 3))
        #expect(directory.locale(of: "u1") == nil)
    }
}
