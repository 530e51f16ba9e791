import BrokerTestSupport
import Foundation
import IntentCrypto
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineTestSupport
import PipelineTopics
import Testing

/// A payments worker never trusts a snapshot on the snapshot topic that is not the
/// payments worker's (issue 11, point 2). (That a restarted member starts from the latest
/// snapshot plus the ledger records after it, and decides only with both, is checked on the
/// simulated pipeline: `SnapshotRestoreSimulationTests`.)
@Suite("Ledger snapshots: a forged snapshot is not used", .heavyTimeLimit(minutes: 5))
struct SnapshotRestoreTests {
    /// The resolve, confirm and payments workers, logging to `log`.
    func startWorkers(_ pipeline: PipelineHarness, log: LogCapture, group: String) async throws {
        try await pipeline.startWorker()
        try await pipeline.start(
            pipeline.confirmWorker(logger: log.logger), pipeline.paymentsWorker(group: group, logger: log.logger))
    }

    func pay(_ pipeline: PipelineHarness, _ intentID: String, _ amount: String) async throws {
        try await pipeline.request(
            intentID, turn: 1,
            .sendPayment(SendPaymentIntent(payee: Person(spoken: "Bob"), currencyAmount: money(amount, "CNY"))))
    }

    @Test("a forged snapshot (a rich ledger, not signed by the payments worker) is not used")
    func refusesForgedSnapshot() async throws {
        try await withPipeline { pipeline in
            try await pipeline.seedPayerAndPayee()
            // u1's partition's "snapshot": a million CNY, written last, under another key.
            var rich = Ledger()
            try rich.apply(
                LedgerEvent(
                    id: "open", kind: .accountOpened, userID: "u1", handles: ["+1 555 0100"], accountVersion: 1))
            try rich.apply(LedgerEvent.deposit(id: "free", userID: "u1", amount: money("1000000", "CNY")))
            let partition = KafkaPartitioner.partition(forKey: "u1", partitions: PipelineHarness.partitions)
            let bytes = rich.snapshotBytes()
            let chunk = try await pipeline.send(
                KafkaProducerMessage(
                    topic: pipeline.topics.ledgerSnapshots, partition: partition, key: Array("1000/0".utf8),
                    value: bytes))
            let manifest = Array(
                """
                {"bytes":\(bytes.count),"chunkOffsets":[\(chunk.offset)],"partition":\(partition),"position":1000,\
                "sha256":"\(Digest.hex(Digest.sha256(bytes)))","stateTopic":"\(pipeline.topics.ledger)"}
                """.utf8)
            var record = KafkaProducerMessage(
                topic: pipeline.topics.ledgerSnapshots, partition: partition, key: Array("manifest".utf8),
                value: manifest)
            let impostor = EventAuthenticator(keys: [PipelineSource.payments: Array(repeating: 0x42, count: 32)])
            if let signature = impostor.signature(forCanonical: manifest, source: PipelineSource.payments) {
                record.append(signature)
            }
            _ = try await pipeline.send(record)

            let log = LogCapture()
            try await startWorkers(pipeline, log: log, group: uniqueName("payments"))
            try await pay(pipeline, "pay-big", "5000")
            let refused = try await pipeline.event(for: "pay-big", type: IntentResponse.type)
            #expect(try refused.decodeData(as: IntentResponse.self).code == .failureInsufficientFunds)
            #expect(log.contains("snapshot not used"))
            #expect(!log.contains("state restored from a snapshot"))
            try await pay(pipeline, "pay-small", "100")
            #expect(try await pipeline.answer("pay-small", .confirmed).code == .success, "rebuilt from the ledger")
        }
    }
}

extension PipelineHarness {
    /// A payments worker on this harness's topics, with the payment tests' binding key (ones).
    func paymentsWorker(group: String, logger: Logger = testLogger) -> PaymentsWorker {
        PaymentsWorker(
            configuration: PaymentsWorker.Configuration(
                kafka: clientConfiguration(broker), topics: topics, groupID: group,
                stage: PaymentsStage(
                    bindingKey: BindingKey(Array(repeating: 1, count: 32)),
                    authenticator: PaymentsFlowTests.authenticator, stages: testStageKeys),
                keys: testStageKeys, sessionTimeout: .seconds(6)),
            logger: logger)
    }

    /// Answers u1's confirmation request for `intentID` and returns the final response.
    func answer(_ intentID: String, _ decision: ConfirmationAnswer.Decision) async throws -> IntentResponse {
        let request = try await event(for: intentID, type: ConfirmationRequest.type)
        let binding = try request.decodeData(as: ConfirmationRequest.self).binding
        let answer = EventEnvelope(
            id: "answer-\(intentID)", source: "/voice/test", type: ConfirmationAnswer.type, time: Date(),
            dataSchema: ConfirmationAnswer.dataSchema, userID: "u1", conversationID: "conversation-u1",
            intentID: intentID, payload: ConfirmationAnswer(decision: decision, binding: binding))
        try await publish(answer, to: topics.confirmations, signedWith: PaymentsFlowTests.authenticator)
        return try await event(for: intentID, type: IntentResponse.type).decodeData(as: IntentResponse.self)
    }
}
