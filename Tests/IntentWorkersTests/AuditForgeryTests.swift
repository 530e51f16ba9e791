import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Kafka
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// The audit over real topics counts only what a worker would have taken (SECURITY.md,
/// attack 49): with produce rights alone (every workload shares one Kafka credential today),
/// a payee's credit could be copied from its effect onto the ledger under a voice service's
/// name; no ledger reader applies it, yet the audit counted it, so a credit never made
/// looked made, and nothing was found.
@Suite("The audit counts what the workers take", .heavyTimeLimit(minutes: 2))
struct AuditForgeryTests {
    static let voice = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(0x33), count: 32)])

    @Test("a credit on the ledger under a voice service's name is found as forged and counts for nothing")
    func voiceCreditOnTheLedger() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-forgery")
            let credit = LedgerEvent(
                id: "voice-credit", kind: .credit, userID: "bob", intentID: "x", transferID: "tr-voice",
                entries: LedgerEntry.move(money("500", "CNY"), from: Ledger.clearing, to: Ledger.available("bob")),
                counterpartyUserID: "alice", amount: money("500", "CNY"))
            try await SingleRecordTopics.send(
                [
                    KafkaProducerMessage(
                        topic: topics.ledger, event: credit.envelope(source: "/voice/test", time: Date()),
                        signedWith: Self.voice)
                ], broker)

            let report = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys)
            #expect(report.findings.count == 1, "\(report.findings)")
            #expect(
                report.findings.first?.hasPrefix("forged: \(topics.ledger)[0]@0 (event voice-credit)") == true,
                "\(report.findings)")
            #expect(report.integrity?.unverifiable == 0)
            // Not a transfer, and no money in or out of clearing: what the workers hold too.
            #expect(report.creditsInTransit == 0)
        }
    }

    @Test("a voice service's answer in binary mode is read as the workers read it")
    func binaryModeAnswer() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-binary")
            let answer = EventEnvelope(
                id: "binary-answer", source: "/voice/test", type: ConfirmationAnswer.type, time: Date(),
                dataSchema: ConfirmationAnswer.dataSchema, userID: "alice", conversationID: "c", intentID: "i1",
                payload: ConfirmationAnswer(
                    decision: .confirmed,
                    binding: ConfirmationBinding(
                        digest: String(repeating: "0", count: 64), expiresAt: Timestamp(Date()))))
            try await SingleRecordTopics.send(
                [KafkaProducerMessage(topic: topics.confirmations, binaryModeEvent: answer, signedWith: Self.voice)],
                broker)
            // Before, its value alone (the data, not an event) was read: "1 records are not events".
            let report = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys)
            #expect(report.findings == [])
            #expect(report.integrity?.unverifiable == 1, "read, and beyond the stages' keys")
        }
    }
}
