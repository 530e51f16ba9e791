import AppState
import AppStateService
import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Payments
import PipelineTopics
import Testing

/// The app state names people from signed records only: contacts from a contacts service,
/// accounts from the compacted accounts topic (read from its start, so a database from
/// before names existed still learns the accounts opened back then).
@Suite("App state: names from the contacts and accounts topics", .heavyTimeLimit(minutes: 3))
struct AppStateNamesTests {
    @Test("accounts known only from the accounts topic name contacts; forged records name nobody and move nothing")
    func namesFromSignedRecords() async throws {
        try await withBroker { broker in
            let topics = PipelineTopics(prefix: uniqueName("names") + ".")
            try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
                try await $0.createTopics(topics.specifications(partitions: 1))
            }
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            // Refused, and before the good records on the same partitions, so they are read first:
            // a deposit on the accounts topic (only openings belong there), and a contact signed
            // by a voice service's key naming the account "孙波 (bank)".
            let deposit = LedgerEvent.opening(userID: "alice", handles: [], deposits: [money("100", "CNY")])[1]
            let voice = EventAuthenticator(keys: ["/voice/x": Array(repeating: 0x21, count: 32)])
            _ = try await producer.sendAll([
                KafkaProducerMessage(
                    topic: topics.accounts,
                    event: deposit.envelope(source: PipelineSource.ledgerOperator, time: Date()),
                    signedWith: testStageKeys),
                KafkaProducerMessage.contact(
                    Contact(id: "c-fake", displayName: "孙波 (bank)", handles: ["sunbo@example.cn"]), of: "alice",
                    topic: topics.contacts, partitions: 1, source: "/voice/x", signedWith: voice),
            ])
            // Only the accounts topic has sunbo's opening (as for a database older than names).
            let opening = KafkaProducerMessage.accountOpening(
                "sunbo", handles: ["sunbo@example.cn"], topics: topics, signedWith: testStageKeys
            ).filter { $0.topic == topics.accounts }
            #expect(opening.count == 1)
            _ = try await producer.sendAll(
                opening + [
                    KafkaProducerMessage.contact(
                        Contact(id: "c-sb", displayName: "孙波", handles: ["SunBo@example.cn"]), of: "alice",
                        topic: topics.contacts, partitions: 1, source: "/contacts/test", signedWith: testContactsKeys)
                ])
            await producer.shutdown()

            let store = try AppStateStore(path: ":memory:")
            let consumer = AppStateConsumer(
                store: store, configuration: clientConfiguration(broker), topics: topics, groupID: uniqueName("app"),
                keys: testStageKeys, contactKeys: testContactsKeys, sessionTimeout: .seconds(6), logger: testLogger)
            let running = Task { try await consumer.run() }
            defer { running.cancel() }
            // Awaits the change that names the contact (a long poll on the store, no sleeps).
            var cursor: Int64 = 0
            var named: JSONValue?
            let deadline = ContinuousClock.now + .seconds(60)
            while named == nil, ContinuousClock.now < deadline {
                let page = try await store.changes(of: "alice", since: cursor, waitingUpTo: .seconds(5))
                cursor = page.cursor
                named = page.changes.last { $0.kind == "contact" && $0.item.objectValue?["userID"] == "sunbo" }?.item
            }
            #expect(named?.objectValue?["name"] == "孙波")
            let alice = try #require(try await store.snapshot(of: "alice").objectValue)
            #expect(alice["contacts"]?.arrayValue?.count == 1, "the voice-signed contact is not applied")
            #expect(alice["balances"]?.arrayValue?.isEmpty == true, "a deposit on the accounts topic moves nothing")
        }
    }
}
