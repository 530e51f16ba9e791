import BrokerTestSupport
import ContactResolution
import Foundation
import GRDB
import IntentEvents
import IntentResolution
import Testing

@testable import AppState

/// A state database from before account ids were hidden served them in contact items
/// (`userID`) and in payment and request items (`counterparty`), and keeps them in its
/// change feed. Opening it migrates them away: ids out of items and feed, names in.
@Suite("App state: a database from before names were served is migrated")
struct AccountIDMigrationTests {
    @Test("contact userIDs and counterparties leave items and the change feed; the payment is named")
    func migrates() async throws {
        let directory = testFileURL("appstate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        do {
            // As the previous version wrote them: Alice's contact 孙波 names the account sunbo, her
            // payment to him says "counterparty": "sunbo", and the feed has both.
            let old = try AppStateStore(path: path, migratedUpTo: AppStateStore.contactsMigration)
            try await old.database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO contacts VALUES ('alice', 'c-sb', '孙波', '["sunbo@example.cn"]');
                        INSERT INTO contact_handles VALUES ('sunbo@example.cn', 'alice', 'c-sb');
                        INSERT INTO account_handles VALUES ('sunbo@example.cn', 'sunbo');
                        INSERT INTO account_handles VALUES ('carol@example.cn', 'carol');
                        INSERT INTO items VALUES
                          ('alice', 'contact', 'c-sb', '{"id":"c-sb","name":"孙波","userID":"sunbo"}', 0),
                          ('alice', 'payment', 't1', '{"counterparty":"sunbo","id":"t1","status":"sent"}', 0),
                          ('alice', 'paymentRequest', 'r1', '{"counterparty":"carol","id":"r1"}', 0);
                        INSERT INTO changes (user_id, kind, item_id, body, at) VALUES
                          ('alice', 'contact', 'c-sb', '{"id":"c-sb","name":"孙波","userID":"sunbo"}', 't'),
                          ('alice', 'payment', 't1', '{"counterparty":"sunbo","id":"t1","status":"sent"}', 't'),
                          ('alice', 'paymentRequest', 'r1', '{"counterparty":"carol","id":"r1"}', 't');
                        """)
            }
        }
        let store = try AppStateStore(path: path)
        let snapshot = try await store.snapshot(of: "alice")
        let feed = try await store.changes(of: "alice", since: 0)
        for text in [snapshot, JSONValue(encoding: feed)].map({
            String(decoding: CanonicalJSON.encode($0), as: UTF8.self)
        }) {
            #expect(!text.contains("sunbo\""), "\(text)")
            #expect(!text.contains("carol"), "\(text)")
            #expect(!text.contains("userID"), "\(text)")
        }
        let state = try #require(snapshot.objectValue)
        #expect(state["contacts"]?.arrayValue == [.object(["id": "c-sb", "name": "孙波"])])
        let payment = try #require(state["payments"]?.arrayValue?.first?.objectValue)
        #expect(payment["counterpartyName"] == "孙波")
        #expect(payment["counterpartyContact"] == "c-sb")
        let request = try #require(state["paymentRequests"]?.arrayValue?.first?.objectValue)
        #expect(request["counterpartyName"] == .null)
        // The names follow later changes as for any item: 孙波 renamed.
        #expect(
            try await store.apply(
                contact: .upsert(
                    userID: "alice", contact: Contact(id: "c-sb", displayName: "波波", handles: ["sunbo@example.cn"]),
                    version: 2)) == .changed)
        let renamed = try await store.snapshot(of: "alice").objectValue?["payments"]?.arrayValue?.first
        #expect(renamed?.objectValue?["counterpartyName"] == "波波")
    }
}
