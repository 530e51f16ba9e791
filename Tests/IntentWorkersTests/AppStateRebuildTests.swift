import AppState
import AppStateService
import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

/// The app state survives losing its disk (issue 31, point 1): its positions are in
/// its database, so a database deleted while the pipeline keeps publishing is rebuilt
/// from the beginning of the topics when the service restarts in the same consumer
/// group, whose committed offsets would otherwise skip all the history it lost.
@Suite("App state rebuilt after its database is lost", .heavyTimeLimit(minutes: 4))
struct AppStateRebuildTests {
    static let users = ["alice", "bob", "carol", "dave"]

    /// A final response for one of the users, signed by the handle stage.
    static func response(_ number: Int, on topic: String) -> KafkaProducerMessage {
        let event = EventEnvelope(
            id: "response-i\(number)", source: PipelineSource.handle, type: IntentResponse.type, time: Date(),
            userID: users[number % users.count], conversationID: "c\(number % 3)", intentID: "i\(number)",
            payload: IntentResponse(kind: .sendMessage, code: .success, message: "Sent \(number)."))
        return KafkaProducerMessage(topic: topic, event: event, signedWith: testStageKeys)
    }

    /// Waits (on the store's change signal, not a clock) until the store has applied
    /// `count` events, or the deadline passes.
    static func waitUntil(_ store: AppStateStore, applied count: Int, deadline: ContinuousClock.Instant) async throws {
        while try await store.appliedEventCount() < count, ContinuousClock.now < deadline {
            let cursor = try await store.cursor(of: "alice")
            _ = try await store.changes(of: "alice", since: cursor, waitingUpTo: .milliseconds(500))
        }
    }

    /// Each user's state without its cursor: change sequence numbers are per database
    /// (interleaving partitions differently), what the user sees is the rest.
    static func states(_ store: AppStateStore) async throws -> [String: JSONValue] {
        var states: [String: JSONValue] = [:]
        for user in users {
            guard case .object(var fields) = try await store.snapshot(of: user) else { continue }
            fields["cursor"] = nil
            states[user] = .object(fields)
        }
        return states
    }

    @Test("a database deleted under load is rebuilt from the topics: the same state as an uninterrupted twin")
    func deletedDatabaseIsRebuilt() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("rebuild") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 3))
            }
            let directory = testFileURL(uniqueName("rebuild"))
            defer { try? FileManager.default.removeItem(at: directory) }
            let twinPath = directory.appendingPathComponent("twin.sqlite").path
            let path = directory.appendingPathComponent("state.sqlite").path
            func consumer(_ store: AppStateStore, group: String) -> AppStateConsumer {
                AppStateConsumer(
                    store: store, configuration: clientConfiguration(broker), topics: topics, groupID: group,
                    keys: testStageKeys.viewing, sessionTimeout: .seconds(6), logger: testLogger)
            }
            func publish(_ numbers: Range<Int>) async throws {
                let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
                _ = try await producer.sendAll(numbers.map { Self.response($0, on: topics.responses) })
                await producer.shutdown()
            }
            let total = 300
            let twin = try AppStateStore(path: twinPath)
            let twinRun = Task { try await consumer(twin, group: uniqueName("twin")).run() }
            let group = uniqueName("appstate")
            let first = try AppStateStore(path: path)
            let firstRun = Task { try await consumer(first, group: group).run() }

            // The first half is applied (and its offsets committed to the group) ...
            try await publish(0..<total / 2)
            try await Self.waitUntil(first, applied: total / 2, deadline: .now + .seconds(90))
            #expect(try await first.appliedEventCount() == total / 2)

            // ... then, while the second half is being published, the service stops, its
            // database is deleted, and it restarts in the same group on an empty one.
            let load = Task { try await publish(total / 2..<total) }
            firstRun.cancel()
            _ = try? await firstRun.value
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
            let rebuilt = try AppStateStore(path: path)
            #expect(try await rebuilt.appliedEventCount() == 0)
            let rebuiltRun = Task { try await consumer(rebuilt, group: group).run() }
            try await load.value

            try await Self.waitUntil(twin, applied: total, deadline: .now + .seconds(90))
            try await Self.waitUntil(rebuilt, applied: total, deadline: .now + .seconds(90))
            rebuiltRun.cancel()
            twinRun.cancel()
            _ = try? await rebuiltRun.value
            _ = try? await twinRun.value

            #expect(try await twin.appliedEventCount() == total)
            #expect(
                try await rebuilt.appliedEventCount() == total,
                "the rebuilt state lacks events from before the database was lost")
            let expected = try await Self.states(twin)
            #expect(expected.count == Self.users.count)
            #expect(try await Self.states(rebuilt) == expected)
        }
    }
}
