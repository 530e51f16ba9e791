import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import Payments
import PipelineTestSupport
import PipelineTopics
import Testing

/// Issue 28, point 5, against a local broker (the attack class's process-level test): validly
/// signed stage events re-appended to their topics (a resolved intent, a proposal, a confirmed
/// message) act on nothing again after every stage restarted (what was acted on is rebuilt from
/// the inputs, ``ReplayMemory``), and a stage event dated past the stage events' freshness bound
/// is refused as stale. The same replays without and with a restart of every stage are checked
/// on the simulated pipeline (`StageReplaySimulationTests`), with the stage logic's variants.
@Suite("Stage events cannot be replayed, against a local broker", .heavyTimeLimit(minutes: 5))
struct StageReplayTests {
    static let pay = Intent.sendPayment(
        SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("10", "CNY")))
    static let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))

    @Test(
        "after a restart (new instances, same groups), re-appended stage events and requests still act on nothing"
    )
    func replaysAfterRestart() async throws {
        try await withTwoVoicePipeline { pipeline in
            try await pipeline.payAndMessage()
            let captured = try await pipeline.capturedStageEvents(requests: true)
            // The two requests, the resolved intents of both, the proposal and the confirmation.
            #expect(captured.count == 6, "\(captured.map { "\($0.topic)" })")
            // Every stage stops (committing what it acted on) and starts again with no memory:
            // new instances of the same consumer groups, so each input partition moves to a
            // member that never saw it. They rebuild what was acted on from their inputs.
            try await pipeline.stopWorker()
            try await pipeline.startStages(voice: MoneySafetyV2Tests.voices, bindingKey: MoneyAttackTests.bindingKey)
            try await pipeline.reappendAndProbe(captured)
            try await pipeline.stopWorker()

            try await pipeline.expectActedOnce()
            // Resolve took the copies of the requests for repeats: the resolved topic holds each
            // intent's original and the copy re-appended above, nothing resolved again.
            let resolved = try await pipeline.recordCounts(of: [pipeline.topics.resolved])
            #expect(resolved["paid"]?[IntentResolutionReport.resolvedType] == 2, "\(resolved)")
            #expect(resolved["sent"]?[IntentResolutionReport.resolvedType] == 2, "\(resolved)")
            // What the guards refuse is not a dead letter (the same bytes again are skipped).
            #expect(try await pipeline.recordCounts(of: [pipeline.topics.deadLetter])["paid"] == nil)
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
    /// Alice pays 孙波 10 CNY ("paid", confirmed and posted) and sends him a message ("sent").
    func payAndMessage() async throws {
        try await request("paid", StageReplayTests.pay, from: "/voice/test")
        let asked = try await event(for: "paid", type: ConfirmationRequest.type)
        let binding = try asked.decodeData(as: ConfirmationRequest.self).binding
        #expect(try await answer("paid", binding, .confirmed, from: "/voice/test", wait: true)?.code == .success)
        try await request("sent", StageReplayTests.message, from: "/voice/test")
        #expect(
            try await event(for: "sent", type: IntentResponse.type).decodeData(as: IntentResponse.self).code
                == .success)
    }

    /// The stage events of "paid" and "sent" (with `requests`, their requests too), captured as
    /// they are on the topics (bytes, key and signature headers).
    func capturedStageEvents(requests: Bool = false) async throws -> [KafkaConsumerMessage] {
        var captured: [KafkaConsumerMessage] = []
        let types =
            [IntentResolutionReport.resolvedType, IntentConfirmation.type] + (requests ? [IntentRequested.type] : [])
        for topic in (requests ? [topics.requested] : []) + [topics.resolved, topics.confirmations, topics.confirmed] {
            try await TopicReader.forEachRecord(
                of: topic, configuration: clientConfiguration(broker), logger: testLogger
            ) { record in
                guard let event = try? EventEnvelope.decode(record.value ?? []),
                    ["paid", "sent"].contains(event.intentID ?? ""), types.contains(event.type)
                else { return }
                captured.append(record)
            }
        }
        return captured
    }

    /// Re-appends `records` as they were, then makes requests after them on Alice's partitions:
    /// once those are answered, every stage has passed the copies.
    func reappendAndProbe(_ records: [KafkaConsumerMessage]) async throws {
        for record in records {
            _ = try await send(
                KafkaProducerMessage(topic: record.topic, key: record.key, value: record.value, headers: record.headers)
            )
        }
        try await request("probe-pay", StageReplayTests.pay, from: "/voice/test")
        let probe = try await event(for: "probe-pay", type: ConfirmationRequest.type)
        _ = try await answer(
            "probe-pay", try probe.decodeData(as: ConfirmationRequest.self).binding, .declined, from: "/voice/test",
            wait: true)
        try await request("probe-message", StageReplayTests.message, from: "/voice/test")
        _ = try await event(for: "probe-message", type: IntentResponse.type)
        try await settlePayments()
    }

    /// Each of "paid" and "sent" was asked once and answered once (no copy of a record either),
    /// and the payment was paid once.
    func expectActedOnce() async throws {
        let counts = try await recordCounts(of: [topics.prompts, topics.responses])
        #expect(counts["paid"]?[ConfirmationRequest.type] == 1, "asked once")
        #expect(counts["paid"]?[IntentResponse.type] == 1, "answered once")
        #expect(counts["sent"]?[IntentResponse.type] == 1, "answered once")
        let ledger = try await rebuildLedger()
        #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("10", "CNY")), "paid once")
    }

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
