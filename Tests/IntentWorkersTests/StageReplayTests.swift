import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import Payments
import PipelineTopics
import Testing

/// Issue 28, point 5: validly signed stage events re-appended to their topics (a resolved
/// intent, a proposal, a confirmed message) act on nothing again, and a stage event dated
/// past the stage events' freshness bound is refused as stale.
@Suite("Stage events cannot be replayed, against a local broker", .heavyTimeLimit(minutes: 5))
struct StageReplayTests {
    @Test("re-appended resolved intents, proposals and confirmed messages ask, hold and answer nothing again")
    func replays() async throws {
        try await withTwoVoicePipeline { pipeline in
            // A payment that ended (paid) and a message that was sent.
            let pay = Intent.sendPayment(
                SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("10", "CNY")))
            try await pipeline.request("paid", pay, from: "/voice/test")
            let asked = try await pipeline.event(for: "paid", type: ConfirmationRequest.type)
            let binding = try asked.decodeData(as: ConfirmationRequest.self).binding
            #expect(
                try await pipeline.answer("paid", binding, .confirmed, from: "/voice/test", wait: true)?.code
                    == .success)
            let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))
            try await pipeline.request("sent", message, from: "/voice/test")
            #expect(
                try await pipeline.event(for: "sent", type: IntentResponse.type).decodeData(as: IntentResponse.self)
                    .code == .success)

            // Their stage events, captured as they are on the topics (bytes, key and signature headers).
            var captured: [KafkaConsumerMessage] = []
            for topic in [pipeline.topics.resolved, pipeline.topics.confirmations, pipeline.topics.confirmed] {
                try await TopicReader.forEachRecord(
                    of: topic, configuration: clientConfiguration(pipeline.broker), logger: testLogger
                ) { record in
                    guard let event = try? EventEnvelope.decode(record.value ?? []),
                        ["paid", "sent"].contains(event.intentID ?? ""),
                        [IntentResolutionReport.resolvedType, IntentConfirmation.type].contains(event.type)
                    else { return }
                    captured.append(record)
                }
            }
            // The resolved intents of both, the payment's proposal and the message's confirmation.
            #expect(captured.count == 4, "\(captured.map { "\($0.topic)" })")
            for record in captured {
                _ = try await pipeline.send(
                    KafkaProducerMessage(
                        topic: record.topic, key: record.key, value: record.value, headers: record.headers))
            }
            // Requests after them on Alice's partitions: once they are answered, every stage has
            // passed the copies above.
            try await pipeline.request("probe-pay", pay, from: "/voice/test")
            let probe = try await pipeline.event(for: "probe-pay", type: ConfirmationRequest.type)
            _ = try await pipeline.answer(
                "probe-pay", try probe.decodeData(as: ConfirmationRequest.self).binding, .declined,
                from: "/voice/test", wait: true)
            try await pipeline.request("probe-message", message, from: "/voice/test")
            _ = try await pipeline.event(for: "probe-message", type: IntentResponse.type)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            // Each intent was asked once and answered once: no copy of a record either.
            let counts = try await pipeline.recordCounts(of: [pipeline.topics.prompts, pipeline.topics.responses])
            #expect(counts["paid"]?[ConfirmationRequest.type] == 1, "asked once")
            #expect(counts["paid"]?[IntentResponse.type] == 1, "answered once")
            #expect(counts["sent"]?[IntentResponse.type] == 1, "answered once")
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("10", "CNY")), "paid once")
            // The audit names the copy on the audited (chained) proposals topic, and nothing else.
            let findings = try await pipeline.audit().findings
            #expect(findings.count == 1)
            #expect(findings.allSatisfy { $0.hasPrefix("replayed: \(pipeline.topics.confirmations)") }, "\(findings)")
            try await pipeline.expectNoEventIDReused()
        }
    }

    @Test("a stage event dated past the freshness bound is refused as stale, however well it is signed")
    func staleStageEvent() async throws {
        try await withTwoVoicePipeline { pipeline in
            // A resolved intent of eleven minutes ago, signed with the resolve stage's own key (as a
            // captured one would be).
            let old = EventEnvelope(
                id: "resolved-old", source: PipelineSource.resolve, type: IntentResolutionReport.resolvedType,
                time: Date() - 660, subject: "old", dataSchema: IntentResolutionReport.resolvedDataSchema,
                userID: "alice", conversationID: "c", intentID: "old",
                payload: IntentResolutionReport(
                    turn: 1,
                    intent: .sendMessage(
                        SendMessageIntent(
                            recipients: [Person(spoken: "孙波", contactID: "sunbo", displayName: "孙波")],
                            content: "hi")),
                    parameters: []))
            try await pipeline.publish(old, to: pipeline.topics.resolved, signedWith: testStageKeys)
            let letters = try await pipeline.deadLetters(count: 1)
            #expect(letters.first?.header(DeadLetter.reasonHeader) == "stale")
            #expect(letters.first?.header(DeadLetter.fieldHeader) == "$.time")
            #expect(pipeline.outputs(for: "old").allSatisfy { $0.type != IntentResponse.type })
        }
    }
}

extension PipelineHarness {
    /// How many records of each type each intent has on these topics, read from their start.
    func recordCounts(of topics: [String]) async throws -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for topic in topics {
            let (events, _) = try await TopicReader.events(
                of: topic, configuration: clientConfiguration(broker), logger: testLogger)
            for event in events { counts[event.intentID ?? "", default: [:]][event.type, default: 0] += 1 }
        }
        return counts
    }
}
