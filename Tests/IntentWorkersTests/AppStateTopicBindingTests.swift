import AppState
import AppStateService
import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Kafka
import LocalBroker
import Messaging
import OperationsEndpoint
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Telemetry
import Testing

/// The app state shows money only as the ledger would have it (SECURITY.md, attacks 45 and 46,
/// found by an attack review in session 22). Its store acts on an event's type, and every
/// stage may write the responses topic: a stage's view key (the resolve worker's, say) put
/// a ledger event there and the page showed it as money; a message event there showed as a
/// message the user never sent. And a deposit the ledger operator signed that moves one
/// user's money to another, which every ledger refuses, showed as moved.
@Suite("App state: each topic's own events, moving money only as the ledger would", .heavyTimeLimit(minutes: 3))
struct AppStateTopicBindingTests {
    static let refused = "intent_records_refused_total"

    @Test("a stage's view key cannot write money or messages onto the responses or messages topic")
    func eventsOnlyFromTheirOwnTopic() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "bind")
            let forgedDeposit = { (id: String, amount: String, source: String) in
                LedgerEvent.deposit(id: id, userID: "alice", amount: money(amount, "CNY"))
                    .envelope(source: source, time: Date())
            }
            let forgedMessage = EventEnvelope(
                id: "forged-message", source: PipelineSource.confirm, type: MessageEvent.type, time: Date(),
                dataSchema: MessageEvent.dataSchema, userID: "alice", conversationID: "c-forged",
                intentID: "forged-intent",
                payload: MessageEvent(
                    id: "forged-message", kind: .delivered, userID: "alice", intentID: "forged-intent",
                    messageIDs: ["m-forged"], conversation: "bob", recipients: [Person(spoken: "bob")],
                    content: "send me your code", serviceName: "chat", at: Timestamp(Date())))
            // Alice's genuine account, 100 CNY; then, each signed by a stage allowed on its topic
            // (all of them hold that stage's view key), a ledger event and a message event where
            // the store would act on their type.
            try await SingleRecordTopics.send(
                KafkaProducerMessage.accountOpening(
                    "alice", handles: ["alice@example.com"], deposits: [money("100", "CNY")], topics: topics,
                    signedWith: testStageKeys)
                    + [
                        KafkaProducerMessage(
                            topic: topics.responses, event: forgedDeposit("forged-1", "5000", PipelineSource.resolve),
                            signedWith: testStageKeys),
                        KafkaProducerMessage(
                            topic: topics.messages, event: forgedDeposit("forged-2", "7000", PipelineSource.handle),
                            signedWith: testStageKeys),
                        KafkaProducerMessage(topic: topics.responses, event: forgedMessage, signedWith: testStageKeys),
                    ], broker)

            let (store, samples) = try await Self.appState(broker, topics) { store, samples in
                // Until the three are refused and the genuine deposit shows, or any of them shows.
                let shown = try await Self.aliceShows(store)
                let forgedShows = (shown.balance.map { $0 != "100" } ?? false) || !shown.messages.isEmpty
                return forgedShows
                    || (samples.sum(Self.refused, ["reason": "unknown_type"]) == 3 && shown.balance == "100")
            }
            let alice = try await Self.aliceShows(store)
            #expect(alice.balance == "100", "only the genuine deposit is money")
            #expect(alice.messages.isEmpty, "no message the handle stage did not write to the messages topic")
            #expect(samples.sum(Self.refused, ["topic": topics.responses, "reason": "unknown_type"]) == 2)
            #expect(samples.sum(Self.refused, ["topic": topics.messages, "reason": "unknown_type"]) == 1)
        }
    }

    @Test("a ledger operator's deposit that moves one user's money to another shows as nothing")
    func depositsMoveOnlyFromOutside() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "moves")
            let move = LedgerEntry.move(
                money("500", "CNY"), from: Ledger.available("alice"), to: Ledger.available("bob"))
            // Both are the operator's to write, and both are refused by every ledger
            // (`MoneySafetyTests/depositsAndHoldsMoveOnlyTheirOwn`): a "deposit" to Bob out of
            // Alice's money, and an account opening carrying the same entries.
            let disguised = LedgerEvent(
                id: "disguised", kind: .deposit, userID: "bob", entries: move, amount: money("500", "CNY"))
            var opening = LedgerEvent.opening(userID: "bob", handles: ["bob@example.com"], version: 2)[0]
            opening.entries = move
            // Last on Bob's partition: a genuine deposit of 1 CNY, shown once all before it was read.
            try await SingleRecordTopics.send(
                KafkaProducerMessage.accountOpening(
                    "alice", handles: ["alice@example.com"], deposits: [money("1000", "CNY")], topics: topics,
                    signedWith: testStageKeys)
                    + KafkaProducerMessage.accountOpening(
                        "bob", handles: ["bob@example.com"], topics: topics, signedWith: testStageKeys)
                    + KafkaProducerMessage.ledgerOperator(
                        [disguised, opening, .deposit(id: "last", userID: "bob", amount: money("1", "CNY"))],
                        topics: topics, signedWith: testStageKeys
                    ).filter { $0.topic == topics.ledger }, broker)

            let (store, samples) = try await Self.appState(broker, topics) { store, _ in
                try await Self.balance(of: "bob", store) != nil
            }
            #expect(try await Self.balance(of: "bob", store) == "1", "Bob got only the genuine deposit")
            #expect(try await Self.balance(of: "alice", store) == "1000", "Alice's money stayed hers")
            #expect(samples.sum(Self.refused, ["topic": topics.ledger, "reason": "wrong_user"]) == 2)
        }
    }

    // MARK: Helpers

    /// Runs the app state's consumer until `done` holds for the store and its counters (each
    /// look after a change, awaited by a long poll on the store; at most 60 s); returns both.
    static func appState(
        _ broker: LocalBroker, _ topics: PipelineTopics,
        until done: (AppStateStore, PrometheusSamples) async throws -> Bool
    ) async throws -> (AppStateStore, PrometheusSamples) {
        let store = try AppStateStore(path: ":memory:")
        let metrics = OperationsMetrics()
        let consumer = AppStateConsumer(
            store: store, configuration: clientConfiguration(broker), topics: topics, groupID: uniqueName("app"),
            keys: testViewKeys, sessionTimeout: .seconds(6), logger: testLogger,
            telemetry: Telemetry(metrics: metrics.factory))
        let running = Task { try await consumer.run() }
        defer { running.cancel() }
        var samples = PrometheusSamples("")
        var cursor: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            samples = PrometheusSamples(String(decoding: metrics.exposition(), as: UTF8.self))
            if try await done(store, samples) { break }
            // A refusal changes no user's state: the wait is bounded to a second for those.
            cursor = try await store.changes(of: "alice", since: cursor, waitingUpTo: .seconds(1)).cursor
        }
        return (store, PrometheusSamples(String(decoding: metrics.exposition(), as: UTF8.self)))
    }

    /// Alice's CNY available balance as her page shows it, and her messages.
    static func aliceShows(_ store: AppStateStore) async throws -> (balance: String?, messages: [JSONValue]) {
        let alice = try await store.snapshot(of: "alice").objectValue
        return (try await balance(of: "alice", store), alice?["messages"]?.arrayValue ?? [])
    }

    static func balance(of user: String, _ store: AppStateStore) async throws -> String? {
        let balances = try await store.snapshot(of: user).objectValue?["balances"]?.arrayValue ?? []
        return balances.lazy.compactMap(\.objectValue).first { $0["currency"] == "CNY" }?["available"]?.stringValue
    }
}
