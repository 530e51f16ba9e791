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

/// Issue 28, point 5, against a local broker: a stage event dated past the stage events'
/// freshness bound is refused as stale, however well it is signed. (That re-appended stage
/// events and requests act on nothing again, also after every stage restarted, is checked on
/// the simulated pipeline: `StageReplaySimulationTests`.)
@Suite("Stale stage events are refused, against a local broker", .heavyTimeLimit(minutes: 5))
struct StageReplayTests {
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
