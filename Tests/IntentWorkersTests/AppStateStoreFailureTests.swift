import AppState
import AppStateService
import BrokerTestSupport
import Foundation
import GRDB
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

/// The app state must not lose an event because its database refused a
/// write: the consumer stops without committing the offset, and a restart
/// reads the event again (issue 10, point 2).
@Suite("App state when the database refuses a write", .heavyTimeLimit(minutes: 3))
struct AppStateStoreFailureTests {
    @Test("the consumer stops uncommitted; after a restart the event is in the app state")
    func storeFailureStopsUncommitted() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("as") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 1))
            }
            let path = testFileURL(uniqueName("app") + ".sqlite").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            // A trigger refuses every write, as a full disk or a damaged file would.
            let store = try AppStateStore(path: path)
            let database = try DatabaseQueue(path: path)
            try await database.write { db in
                try db.execute(
                    sql:
                        "CREATE TRIGGER refuse BEFORE INSERT ON applied_events BEGIN SELECT RAISE(ABORT, 'injected'); END"
                )
            }
            let response = EventEnvelope(
                id: "response-i1", source: PipelineSource.handle, type: IntentResponse.type, time: Date(),
                userID: "alice", conversationID: "c", intentID: "i1",
                payload: IntentResponse(kind: .sendMessage, code: .success, message: "Sent."))
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            _ = try await producer.send(
                KafkaProducerMessage(topic: topics.responses, event: response, signedWith: testStageKeys))
            await producer.shutdown()

            let group = uniqueName("appstate")
            func consumer(_ store: AppStateStore) -> AppStateConsumer {
                AppStateConsumer(
                    store: store, configuration: clientConfiguration(broker), topics: topics, groupID: group,
                    keys: testStageKeys.viewing, sessionTimeout: .seconds(6), logger: testLogger)
            }
            // The write fails: the consumer stops with the database's error.
            await #expect(throws: DatabaseError.self) { try await consumer(store).run() }
            #expect(try await store.cursor(of: "alice") == 0)

            // The database takes writes again; a restarted consumer in the same group reads
            // the event again (its offset was not committed) and applies it.
            try await database.write { try $0.execute(sql: "DROP TRIGGER refuse") }
            let restarted = consumer(store)
            let running = Task { try await restarted.run() }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await store.cursor(of: "alice") == 0, ContinuousClock.now < deadline {
                _ = try await store.changes(of: "alice", since: 0, waitingUpTo: .seconds(1))
            }
            running.cancel()
            _ = try? await running.value
            #expect(try await store.cursor(of: "alice") > 0, "the event was lost for the app")
        }
    }
}
