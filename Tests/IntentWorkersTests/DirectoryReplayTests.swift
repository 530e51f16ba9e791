import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
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

/// Replays of directory records against the running pipeline: an attacker who
/// captured validly signed contact and settings records re-appends them as they
/// are. Each is older than what the readers hold, so it changes nothing: the
/// resolve worker ignores it (at start, reading the topic, and live), counting
/// it (`intent_directory_records_stale_total`), and money goes to the handle the
/// user has now, in the language the user chose last.
@Suite("Directory records replayed against a local broker", .heavyTimeLimit(minutes: 5))
struct DirectoryReplayTests {
    static let settingsKeys = EventAuthenticator(keys: ["/settings/test": Array(repeating: 0x5e, count: 32)])

    @Test("a replayed older contact, tombstone or setting changes nothing: the payment confirms to the newer handle")
    func replays() async throws {
        try await withPipeline { pipeline in
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
            try await pipeline.openAccount("sunbo-old", handle: "sunbo@old.example")
            try await pipeline.openAccount("sunbo", handle: "sunbo@new.example")
            // 孙波 changed his handle: v1 had the old one, v2 the new one.
            let v1 = try await pipeline.publishContacts(
                [Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@old.example"])], user: "alice")
            try await pipeline.publishContacts(
                [Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@new.example"])], user: "alice")
            // 小明 was deleted, then added again.
            let xiaoming = Contact(id: "xiaoming", displayName: "小明", handles: ["xm@example.cn"])
            try await pipeline.publishContacts([xiaoming], user: "alice")
            let tombstone = try await pipeline.deleteContact("xiaoming", user: "alice")
            try await pipeline.publishContacts([xiaoming], user: "alice")
            // Alice chose Russian, then Chinese.
            let settings = pipeline.topics.settings
            let russian = KafkaProducerMessage.userSettings(
                UserSettings(locale: "ru-RU"), of: "alice", version: 1, topic: settings,
                partitions: PipelineHarness.partitions, source: "/settings/test", signedWith: Self.settingsKeys)
            _ = try await pipeline.send(russian)
            _ = try await pipeline.send(
                .userSettings(
                    UserSettings(locale: "zh-Hans-CN"), of: "alice", version: 2, topic: settings,
                    partitions: PipelineHarness.partitions, source: "/settings/test", signedWith: Self.settingsKeys))
            // The attack: the captured records appended again, byte for byte, after the newer ones.
            for record in v1 + [tombstone, russian] { _ = try await pipeline.send(record) }

            let metrics = OperationsMetrics()
            try await pipeline.startStages(
                voice: MoneyAttackTests.voice, bindingKey: MoneyAttackTests.bindingKey, settings: Self.settingsKeys,
                telemetry: Telemetry(metrics: metrics.factory))
            // Read from the topic at start: the old handle and language are not what the worker holds.
            let first = try await confirmPayment(pipeline, "pay-1")
            #expect(first.counterpartyAccount == "sunbo@new.example")
            #expect(first.proposedResponse.hasPrefix("向孙波（sunbo@new.example）付款"), "\(first.proposedResponse)")
            // The contact deleted and added again is there (its old tombstone did not delete it).
            try await pipeline.requestSigned(
                pipeline.signed(
                    "message", .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "晚上好"))))
            let resolved = try await pipeline.event(for: "message", type: IntentResolutionReport.resolvedType)
            let report = try resolved.decodeData(as: IntentResolutionReport.self)
            guard case .sendMessage(let message) = report.intent else {
                Issue.record("not a message: \(report.intent)")
                return
            }
            #expect(message.recipients.map(\.contactID) == ["xiaoming"])
            let contacts = pipeline.topics.contacts
            let atStart = try await staleCount(metrics, contacts) { $0 >= 2 }
            #expect(try await staleCount(metrics, settings) { $0 >= 1 } >= 1)

            // The same replay while the worker runs: counted once more, and still ignored.
            _ = try await pipeline.send(v1[0])
            _ = try await staleCount(metrics, contacts) { $0 > atStart }
            let second = try await confirmPayment(pipeline, "pay-2")
            #expect(second.counterpartyAccount == "sunbo@new.example")

            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("400", "CNY")))
            #expect(ledger.availableBalance(of: "sunbo-old", "CNY") == Money.zero("CNY"))
        }
    }

    /// Asks to pay 孙波 200 CNY (no locale: the user's setting decides), confirms, and
    /// returns the question the user was asked.
    private func confirmPayment(_ pipeline: PipelineHarness, _ intentID: String) async throws -> ConfirmationRequest {
        try await pipeline.requestSigned(
            pipeline.signed(
                intentID,
                .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("200", "CNY")))))
        let request = try await pipeline.event(for: intentID, type: ConfirmationRequest.type)
            .decodeData(as: ConfirmationRequest.self)
        let response = try await pipeline.answer(intentID, request.binding, .confirmed)
        #expect(response.code == .success)
        return request
    }

    /// The stale-record count of `topic` once `done` holds for it (read from the metrics
    /// registry as `/metrics` serves it, until it does or a minute passed).
    private func staleCount(_ metrics: OperationsMetrics, _ topic: String, _ done: (Double) -> Bool) async throws
        -> Double
    {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            let count = PrometheusSamples(text).sum(StaleDirectoryRecord.metric, ["topic": topic]) ?? 0
            if done(count) { return count }
            guard ContinuousClock.now < deadline else { throw Failure("stale records of \(topic): \(count)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
