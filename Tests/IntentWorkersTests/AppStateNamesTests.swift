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
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// The app state names people from signed records only: contacts from a contacts service,
/// accounts from the compacted accounts topic (read from its start, so a database from
/// before names existed still learns the accounts opened back then).
@Suite("App state: names from the contacts and accounts topics", .heavyTimeLimit(minutes: 3))
struct AppStateNamesTests {
    @Test("accounts known only from the accounts topic name a payee; forged records name nobody and move nothing")
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
                    version: 1, topic: topics.contacts, partitions: 1, source: "/voice/x", signedWith: voice),
            ])
            // Only the accounts topic has sunbo's opening (as for a database older than names).
            let opening = KafkaProducerMessage.accountOpening(
                "sunbo", handles: ["sunbo@example.cn"], topics: topics, signedWith: testStageKeys
            ).filter { $0.topic == topics.accounts }
            #expect(opening.count == 1)
            // Alice pays sunbo (a hold, as the payments stage writes it): the app state names him.
            let hold = LedgerEvent(
                id: "hold-t1", kind: .hold, userID: "alice", intentID: "i1", transferID: "t1",
                entries: [
                    LedgerEntry(account: Ledger.available("alice"), side: .debit, amount: money("10", "CNY")),
                    LedgerEntry(account: Ledger.held("alice"), side: .credit, amount: money("10", "CNY")),
                ], counterpartyUserID: "sunbo", counterpartyAccount: "sunbo@example.cn", amount: money("10", "CNY"))
            _ = try await producer.sendAll(
                opening + [
                    KafkaProducerMessage(
                        topic: topics.ledger, event: hold.envelope(source: PipelineSource.payments, time: Date()),
                        signedWith: testStageKeys),
                    KafkaProducerMessage.contact(
                        Contact(id: "c-sb", displayName: "孙波", handles: ["SunBo@example.cn"]), of: "alice",
                        version: 1, topic: topics.contacts, partitions: 1, source: "/contacts/test",
                        signedWith: testContactsKeys),
                ])
            await producer.shutdown()

            let store = try AppStateStore(path: ":memory:")
            let consumer = AppStateConsumer(
                store: store, configuration: clientConfiguration(broker), topics: topics, groupID: uniqueName("app"),
                keys: testViewKeys, sessionTimeout: .seconds(6), logger: testLogger)
            let running = Task { try await consumer.run() }
            defer { running.cancel() }
            // Awaits the change that names the payee from Alice's contact, on the server (a long
            // poll on the store, no sleeps): only once contact, account and hold are all in.
            var cursor: Int64 = 0
            var named: JSONValue?
            let deadline = ContinuousClock.now + .seconds(60)
            while named == nil, ContinuousClock.now < deadline {
                let page = try await store.changes(of: "alice", since: cursor, waitingUpTo: .seconds(5))
                cursor = page.cursor
                named =
                    page.changes.last { $0.kind == "payment" && $0.item.objectValue?["counterpartyName"] == "孙波" }?
                    .item
            }
            #expect(named?.objectValue?["counterpartyContact"] == "c-sb")
            let alice = try #require(try await store.snapshot(of: "alice").objectValue)
            #expect(
                alice["contacts"]?.arrayValue == [.object(["id": "c-sb", "name": "孙波"])], "no voice-signed contact")
            #expect(
                alice["balances"]?.arrayValue?.contains { $0.objectValue?["available"] == "100" } == false,
                "a deposit on the accounts topic moves nothing")
        }
    }
}
