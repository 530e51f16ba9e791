import AppState
import Foundation
import IntentEvents
import IntentResolution
import Testing

/// The language each user chose, as the app state keeps it from the settings topic: one
/// `setting` item, replaced by newer versions only, removed by a reset or a setting
/// without a language, and never the voice services a user speaks through.
@Suite("App state: each user's language")
struct AppStateSettingsTests {
    func settings(of user: String, in store: AppStateStore) async throws -> JSONValue? {
        try await store.snapshot(of: user).objectValue?["settings"]
    }

    @Test("a setting is served with the state and its changes; older versions change nothing; a reset removes it")
    func versions() async throws {
        let store = try AppStateStore(path: ":memory:")
        #expect(try await settings(of: "alice", in: store) == .array([]))
        let russian = UserSettings(locale: "ru-RU", voiceServices: ["/voice/eu-1"])
        #expect(try await store.apply(settings: .set(userID: "alice", settings: russian, version: 2)) == .changed)
        #expect(
            try await settings(of: "alice", in: store) == .array([.object(["id": "language", "locale": "ru-RU"])]),
            "the locale only, not the voice services")
        let feed = try await store.changes(of: "alice", since: 0)
        #expect(feed.changes.map(\.kind) == ["setting"])
        // The same again, then an older Chinese one (a replay): nothing changes.
        #expect(try await store.apply(settings: .set(userID: "alice", settings: russian, version: 3)) == .unchanged)
        #expect(
            try await store.apply(
                settings: .set(userID: "alice", settings: UserSettings(locale: "zh-Hans-CN"), version: 3))
                == .stale(version: 3, seen: 3))
        #expect(try await settings(of: "alice", in: store) == .array([.object(["id": "language", "locale": "ru-RU"])]))
        #expect(try await settings(of: "bob", in: store) == .array([]), "one user's setting is not another's")
        // A reset removes the language (the page follows the browser again), as a deleted item in the feed.
        #expect(try await store.apply(settings: .reset(userID: "alice", version: 4)) == .changed)
        #expect(try await settings(of: "alice", in: store) == .array([]))
        let after = try await store.changes(of: "alice", since: feed.cursor)
        #expect(after.changes.last?.item == .object(["id": "language", "deleted": .bool(true)]))
        // A setting with voice services and no language has none to show either.
        #expect(
            try await store.apply(
                settings: .set(userID: "alice", settings: UserSettings(voiceServices: ["/voice/eu-1"]), version: 5))
                == .unchanged)
    }
}
