import Foundation
import IntentEvents
import IntentResolution
import Testing

/// Settings decide the language every answer is in: only a settings service's signed
/// record counts, and a tag that is not BCP 47 never gets in.
@Suite("User settings records")
struct UserSettingsRecordTests {
    static let keys = EventAuthenticator(
        keys: ["/settings/app": Array(repeating: 7, count: 32), "/voice/a": Array(repeating: 8, count: 32)])

    func record(_ settings: UserSettings, user: String = "u1", source: String = "/settings/app")
        -> (value: [UInt8], signature: EventSignature?)
    {
        let event = UserSettingsRecord.event(
            userID: user, settings: settings, version: nil, source: source, time: fixedNow)
        return (event.encoded(), Self.keys.signature(for: event))
    }

    @Test("a settings service's record is read; a reset needs its signature too")
    func accepted() throws {
        let (value, signature) = record(UserSettings(locale: "zh-Hans-CN"))
        let read = try UserSettingsRecord.decode(
            key: Array("u1".utf8), value: value, signature: signature, tombstoneSource: nil, authenticator: Self.keys)
        #expect(read == .set(userID: "u1", settings: UserSettings(locale: "zh-Hans-CN")))
        let reset = Self.keys.signature(
            forCanonical: UserSettingsRecord.resetMessage(userID: "u1"), source: "/settings/app")
        #expect(
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: nil, signature: reset, tombstoneSource: "/settings/app",
                authenticator: Self.keys) == .reset(userID: "u1"))
        #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: nil, signature: nil, tombstoneSource: "/settings/app",
                authenticator: Self.keys)
        }
    }

    @Test("refused: a voice service's record, another user's key, a malformed tag, no key")
    func refused() throws {
        let voice = record(UserSettings(locale: "ru-RU"), source: "/voice/a")
        #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: voice.value, signature: voice.signature, tombstoneSource: nil,
                authenticator: Self.keys)
        }
        let other = record(UserSettings(locale: "ru-RU"), user: "u2")
        #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: other.value, signature: other.signature, tombstoneSource: nil,
                authenticator: Self.keys)
        }
        let malformed = record(UserSettings(locale: "ru_RU\u{0}"))
        let error = #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: Array("u1".utf8), value: malformed.value, signature: malformed.signature, tombstoneSource: nil,
                authenticator: Self.keys)
        }
        #expect(error?.field == "$.data.locale")
        let good = record(UserSettings(locale: "ru-RU"))
        #expect(throws: EventDecodingError.self) {
            try UserSettingsRecord.decode(
                key: nil, value: good.value, signature: good.signature, tombstoneSource: nil, authenticator: Self.keys)
        }
    }

    @Test("the directory keeps each user's latest choice until a reset")
    func directory() {
        var directory = UserSettingsDirectory()
        directory.apply(.set(userID: "u1", settings: UserSettings(locale: "ru-RU")))
        directory.apply(.set(userID: "u1", settings: UserSettings(locale: "zh-Hans-CN")))
        #expect(directory.locale(of: "u1") == "zh-Hans-CN")
        #expect(directory.locale(of: "u2") == nil)
        directory.apply(.reset(userID: "u1"))
        #expect(directory.locale(of: "u1") == nil)
    }
}
