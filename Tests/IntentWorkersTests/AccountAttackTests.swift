import AppState
import AppStateService
import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import OperationsEndpoint
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Telemetry
import Testing

/// Accounts against a real local broker: one owner per handle and versions that only
/// grow, held by every reader (confirm's and payments' directory, the app state, the
/// audit) for records written straight onto the topics with the ledger operator's key;
/// and `intentctl ledger` as an operator uses it, refusing by name what it will not do.
@Suite("Accounts: handles, versions and the deposit door, against a local broker", .heavyTimeLimit(minutes: 5))
struct AccountAttackTests {
    @Test("a colliding opening takes no handle; a replayed opening after a close takes nothing back")
    func collidingAndReplayedAccounts() async throws {
        try await withPipeline { pipeline in
            // In the accounts topic's one order: honest openings, then, written straight onto the
            // topics with the operator's key, Mallory's new version claiming 孙波's handle (written
            // differently); Lee closes, Dan opens with the released handle, and Lee's old opening
            // is replayed. Zed opens last.
            func write(_ events: [LedgerEvent]) async throws {
                for record in KafkaProducerMessage.ledgerOperator(
                    events, topics: pipeline.topics, signedWith: testStageKeys)
                {
                    _ = try await pipeline.send(record)
                }
            }
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
            try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
            try await pipeline.openAccount("mallory", handle: "mallory@evil.example")
            try await pipeline.openAccount("lee", handle: "lee@example.com")
            let leeOpening = LedgerEvent.opening(userID: "lee", handles: ["lee@example.com"])[0]
            try await write(
                LedgerEvent.opening(userID: "mallory", handles: [" SunBo@Example.cn"], version: 2)
                    + [LedgerEvent.closing(userID: "lee", version: 2)]
                    + LedgerEvent.opening(userID: "dan", handles: ["lee@example.com"]))
            // The captured opening again, and under another id (as a writer holding the key could).
            var renamed = leeOpening
            renamed.id = "replayed-lee-opening"
            try await write([leeOpening, renamed])
            try await pipeline.openAccount("zed", handle: "zed@example.com")
            try await pipeline.publishContacts(
                [
                    Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"]),
                    Contact(id: "lee", displayName: "Lee", handles: ["lee@example.com"]),
                    Contact(id: "zed", displayName: "Zed", handles: ["zed@example.com"]),
                ], user: "alice")
            // The workers load the whole accounts directory before they decide anything; what
            // they ignore is counted where an operator's /metrics would show it.
            let metrics = try await pipeline.startStagesCounting()

            // 孙波's handle is still 孙波's: the payment confirmed to it reaches him, not Mallory.
            let toSunbo = try await pipeline.pay("to-sunbo", "孙波", "20")
            #expect(toSunbo.counterpartyAccount == "sunbo@example.cn")
            #expect(try await pipeline.answer("to-sunbo", toSunbo.binding, .confirmed).code == .success)
            // Lee's handle is Dan's now; Lee's replayed opening did not take it back.
            let toLee = try await pipeline.pay("to-lee", "Lee", "30")
            #expect(try await pipeline.answer("to-lee", toLee.binding, .confirmed).code == .success)

            // Both deciding workers (confirm, payments) ignored Mallory's opening and both of Lee's
            // replays (one is the captured record, the other the same under another id).
            let samples = PrometheusSamples(String(decoding: metrics.exposition(), as: UTF8.self))
            let ignored = "intent_account_records_ignored_total"
            #expect(samples.sum(ignored, ["reason": "accountHandleTaken"]) == 2)
            #expect(samples.sum(ignored, ["reason": "accountVersionStale"]) == 4)

            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("20", "CNY")))
            #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
            #expect(ledger.availableBalance(of: "dan", "CNY") == Money(money("30", "CNY")))
            #expect(ledger.availableBalance(of: "lee", "CNY") == Money.zero("CNY"))
            // The audit reads the accounts topic under the same rules: every payee held its handle.
            #expect(try await pipeline.audit().findings == [])
            // The directory as every worker (and `intentctl`) reads it now.
            let directory = try await AccountsReader.directory(
                topic: pipeline.topics.accounts, configuration: clientConfiguration(pipeline.broker),
                logger: testLogger, keys: testStageKeys)
            #expect(directory.account(handle: "sunbo@example.cn")?.userID == "sunbo")
            #expect(directory.accounts["mallory"]?.handles == ["mallory@evil.example"])
            #expect(directory.account(handle: "lee@example.com")?.userID == "dan")
            #expect(directory.accounts["lee"] == nil)
            #expect(directory.versions["lee"] == 2)

            // The app state, reading the same topic, names the same owners: each payment is named
            // from Alice's contact whose handle its payee's account holds (it serves no account
            // ids): 孙波's by 孙波, the one to Dan by the contact Lee, whose handle Dan holds now.
            let store = try AppStateStore(path: ":memory:")
            let appMetrics = OperationsMetrics()
            let consumer = AppStateConsumer(
                store: store, configuration: clientConfiguration(pipeline.broker), topics: pipeline.topics,
                groupID: uniqueName("app"), keys: testViewKeys,
                sessionTimeout: .seconds(6), logger: testLogger, telemetry: Telemetry(metrics: appMetrics.factory))
            let running = Task { try await consumer.run() }
            defer { running.cancel() }
            let expected: [String: JSONValue] = ["to-sunbo": "sunbo", "to-lee": "lee"]
            var cursor: Int64 = 0
            var named: [String: JSONValue] = [:]
            var appSamples = PrometheusSamples("")
            let deadline = ContinuousClock.now + .seconds(60)
            // Until both payments are named and both ignored openings counted (each change awaited
            // by a long poll on the store).
            while ContinuousClock.now < deadline {
                appSamples = PrometheusSamples(String(decoding: appMetrics.exposition(), as: UTF8.self))
                if named == expected, appSamples.sum(ignored, ["reason": "accountHandleTaken"]) == 1,
                    appSamples.sum(ignored, ["reason": "accountVersionStale"]) == 1
                {
                    break
                }
                let page = try await store.changes(of: "alice", since: cursor, waitingUpTo: .seconds(1))
                cursor = page.cursor
                let payments = try await store.snapshot(of: "alice").objectValue?["payments"]?.arrayValue ?? []
                for case .object(let fields) in payments {
                    named[fields["intentID"]?.stringValue ?? ""] = fields["counterpartyContact"] ?? .null
                }
            }
            #expect(named == expected)
            // The captured replay is the same event id, already applied: only the renamed one is counted.
            #expect(appSamples.sum(ignored, ["reason": "accountHandleTaken"]) == 1)
            #expect(appSamples.sum(ignored, ["reason": "accountVersionStale"]) == 1)
        }
    }

    @Test("a handle released and taken by another account after the user confirmed: the hold is released, not paid")
    func ownerChangedAfterConfirmation() async throws {
        try await withPipeline { pipeline in
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
            try await pipeline.openAccount("bob", handle: "bob@example.com")
            try await pipeline.publishContacts(
                [Contact(id: "bob", displayName: "Bob", handles: ["bob@example.com"])], user: "alice")
            let metrics = try await pipeline.startStagesCounting()
            let request = try await pipeline.pay("to-bob", "Bob", "50")
            #expect(request.counterpartyAccount == "bob@example.com")

            // While Alice is asked, Bob closes and Mallory opens with his handle; then Bob's old
            // opening is replayed. Once both deciding workers have counted the replay as stale,
            // they have applied the closing and the opening before it (one partition, one order).
            var replayed = LedgerEvent.opening(userID: "bob", handles: ["bob@example.com"])[0]
            replayed.id = "replayed-bob-opening"
            for record in KafkaProducerMessage.ledgerOperator(
                [LedgerEvent.closing(userID: "bob", version: 2)]
                    + LedgerEvent.opening(userID: "mallory", handles: [" Bob@example.com"]) + [replayed],
                topics: pipeline.topics, signedWith: testStageKeys)
            {
                _ = try await pipeline.send(record)
            }
            let deadline = ContinuousClock.now + .seconds(60)
            func staleCounted() -> Double? {
                PrometheusSamples(String(decoding: metrics.exposition(), as: UTF8.self))
                    .sum("intent_account_records_ignored_total", ["reason": "accountVersionStale"])
            }
            while staleCounted() != 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(staleCounted() == 2)

            // The binding names the account's owner: a payments member that reads the proposal
            // after the handle moved refuses it at once (bindingMismatch); one that read it before
            // releases the hold when the answer comes (payeeAccountChanged). Either way nothing moves.
            let response = try await pipeline.answer("to-bob", request.binding, .confirmed)
            #expect(response.code == .failure)
            #expect(["payeeAccountChanged", "bindingMismatch"].contains(response.reason ?? ""), "\(response)")
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "alice", "CNY") == Money(money("1000", "CNY")))
            #expect(ledger.balance(Ledger.held("alice"), "CNY") == Money.zero("CNY"))
            #expect(ledger.availableBalance(of: "mallory", "CNY") == Money.zero("CNY"))
            #expect(ledger.availableBalance(of: "bob", "CNY") == Money.zero("CNY"))
            #expect(try await pipeline.audit().findings == [])
        }
    }

    @Test("intentctl ledger as a new operator uses it: every repeat is reported, every refusal named, the audit holds")
    func operatorCommands() async throws {
        try await withBroker { broker in
            try await OperatorCommandTests.withStageKeyFile { keyFile in
                let prefix = uniqueName("ledger") + "."
                let environment = ["INTENT_TOPIC_PREFIX": prefix, "INTENT_STAGE_KEYS_FILE": keyFile.path]
                let topics = PipelineTopics(prefix: prefix)
                func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                    try await OperatorCommandTests.run(broker, arguments, environment: environment)
                }
                func succeeds(_ arguments: [String], saying expected: String? = nil) async throws {
                    let result = try await run(arguments)
                    #expect(result.status == 0, "\(arguments): \(result.output)")
                    if let expected { #expect(result.output.contains(expected), "\(arguments): \(result.output)") }
                }
                func fails(_ arguments: [String], saying expected: String) async throws {
                    let result = try await run(arguments)
                    #expect(result.status != 0, "\(arguments): \(result.output)")
                    #expect(result.output.contains(expected), "\(arguments): \(result.output)")
                }
                try await succeeds(["topics", "provision", "--partitions", "3", "--replication-factor", "1"])

                let alice = ["ledger", "open-account", "--user", "alice", "--handle", "+1 555 0100"]
                try await succeeds(alice, saying: "account of alice opened (+1 555 0100), version 1")
                try await succeeds(alice, saying: "nothing written: the account of alice is already open as asked")
                try await fails(
                    alice + ["--handle", "alice@example.com"],
                    saying: "handles [+1 555 0100], not [+1 555 0100, alice@example.com]")
                try await succeeds(
                    alice + ["--handle", "alice@example.com", "--replace"], saying: "version 2")
                try await fails(
                    ["ledger", "open-account", "--user", "mallory", "--handle", "+1 (555) 01-00"],
                    saying: "the handle +1 (555) 01-00 is taken: it belongs to the account of alice")

                func deposit(_ user: String, _ amount: String, _ currency: String, _ id: String) -> [String] {
                    ["ledger", "deposit", "--user", user, "--amount", amount, "--currency", currency, "--id", id]
                }
                try await succeeds(deposit("alice", "12.34", "CNY", "bank-1"), saying: "deposited 12.34 CNY to alice")
                try await succeeds(deposit("alice", "12.34", "CNY", "bank-1"), saying: "nothing written")
                try await fails(deposit("alice", "99", "CNY", "bank-1"), saying: "amount 12.34 CNY, not 99 CNY")
                try await fails(deposit("alice", "1.234", "CNY", "bank-2"), saying: "CNY's 2 minor units")
                try await fails(deposit("alice", "5.5", "JPY", "bank-3"), saying: "JPY's 0 minor units")
                try await fails(deposit("nobody", "1", "CNY", "bank-4"), saying: "nobody has no open account")
                try await succeeds(deposit("alice", "1.250", "KWD", "bank-5"), saying: "deposited")

                try await fails(
                    ["ledger", "close-account", "--user", "alice"], saying: "still holds 12.34 CNY, 1.25 KWD")
                try await succeeds(
                    ["ledger", "open-account", "--user", "bob", "--handle", "bob@example.com"], saying: "version 1")
                try await succeeds(["ledger", "close-account", "--user", "bob"], saying: "version 2")
                try await succeeds(["ledger", "close-account", "--user", "bob"], saying: "already closed (version 2)")
                // Bob's handle is free; a new opening of Bob's is version 3.
                try await succeeds(
                    ["ledger", "open-account", "--user", "mallory", "--handle", "BOB@example.com"], saying: "version 1")
                try await succeeds(
                    ["ledger", "open-account", "--user", "bob", "--handle", "bob2@example.com"], saying: "version 3")

                // What the workers would hold, and the audit of what was written.
                let directory = try await AccountsReader.directory(
                    topic: topics.accounts, configuration: clientConfiguration(broker), logger: testLogger,
                    keys: testStageKeys)
                #expect(directory.accounts["alice"]?.handles == ["+1 555 0100", "alice@example.com"])
                #expect(directory.account(handle: "bob@example.com")?.userID == "mallory")
                #expect(directory.versions == ["alice": 2, "bob": 3, "mallory": 1])
                let report = try await TopicAudit.run(
                    topics: topics, configuration: clientConfiguration(broker), logger: testLogger,
                    keys: testStageKeys)
                #expect(report.findings == [])
                var ledger = Ledger()
                let (events, _) = try await TopicReader.events(
                    of: topics.ledger, configuration: clientConfiguration(broker), logger: testLogger)
                for event in events { try ledger.apply(LedgerEvent.decode(from: event)) }
                #expect(ledger.availableBalance(of: "alice", "CNY") == Money(money("12.34", "CNY")))
                #expect(ledger.availableBalance(of: "alice", "KWD") == Money(money("1.25", "KWD")))
                #expect(ledger.allBalances.filter { $0.account.hasPrefix("users/") }.count == 2)
            }
        }
    }
}

extension PipelineHarness {
    /// The four stages, their metrics recorded in the returned registry (as an operator's /metrics would show them).
    func startStagesCounting() async throws -> OperationsMetrics {
        let metrics = OperationsMetrics()
        try await startStages(
            voice: MoneyAttackTests.voice, bindingKey: MoneyAttackTests.bindingKey,
            telemetry: Telemetry(metrics: metrics.factory))
        return metrics
    }

    /// Alice asks to pay the contact `name`; returns the confirmation request (her hold is placed).
    func pay(_ intentID: String, _ name: String, _ amount: String) async throws -> ConfirmationRequest {
        try await requestSigned(
            signed(
                intentID,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: name), currencyAmount: money(amount, "CNY")))))
        return try await event(for: intentID, type: ConfirmationRequest.type).decodeData(as: ConfirmationRequest.self)
    }
}
