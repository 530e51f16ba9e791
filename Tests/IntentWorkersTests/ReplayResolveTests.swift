import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import PipelineTestSupport
import PipelineTools
import Testing

/// `intentctl replay resolve` on a real broker: decisions are re-derived with the
/// contact book they used, whatever changed since, and a decision the current
/// resolver would take differently is listed with exit 1; decisions made under another
/// resolver configuration than the replay's are counted, not compared.
@Suite("Re-deriving resolve decisions, against a local broker", .heavyTimeLimit(minutes: 5))
struct ReplayResolveTests {
    @Test("a replay uses each decision's own contact book; a different decision is listed before and after")
    func replay() async throws {
        try await withMoneyPipeline { pipeline in
            let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))
            try await pipeline.requestSigned(pipeline.signed("decided", message))
            let decided = try await pipeline.event(for: "decided", type: IntentResolutionReport.resolvedType)
                .decodeData(as: IntentResolutionReport.self)
            let version = try #require(decided.contactsVersion)
            // After the decision, a second 孙波 joins the book: today the name would be ambiguous,
            // but the decision saw one 孙波 and is re-derived with that book.
            try await pipeline.publishContacts(
                [
                    Contact(id: "sunbo", displayName: "孙波", handles: ["sunbo@example.cn"]),
                    Contact(id: "sunbo-2", displayName: "孙波", handles: ["sunbo2@example.cn"]),
                ], user: "alice")
            try await pipeline.stopWorker()

            func replay() async throws -> (Int32, ResolveReplay.Report?, String) {
                try await OperatorCommandTests.runJSON(
                    pipeline.broker, ["replay", "resolve", "--json"], as: ResolveReplay.Report.self,
                    environment: ["INTENT_TOPIC_PREFIX": pipeline.topics.prefix])
            }
            let (status, report, output) = try await replay()
            #expect(status == 0, "\(output)")
            #expect(report?.replayed == 1, "\(output)")
            #expect(report?.changes == [], "\(output)")

            // A decision as an older resolver took it (recorded with the same book):
            // disambiguation where the current resolver finds 孙波 alone.
            let request = pipeline.signed("older", message)
            try await pipeline.requestSigned(request)
            var older = decided
            older.parameters = decided.parameters.map { parameter in
                guard parameter.parameter == "recipients[0]" else { return parameter }
                return ParameterResolution(
                    parameter: parameter.parameter, outcome: .disambiguation,
                    candidates: [
                        ContactCandidate(contactID: "sunbo", displayName: "孙波"),
                        ContactCandidate(contactID: "mallory", displayName: "Mallory"),
                    ])
            }
            #expect(older.contactsVersion == version)
            try await pipeline.publish(
                EventEnvelope(
                    id: "older-decision", source: PipelineSource.resolve, type: IntentResolutionReport.promptType,
                    time: request.time, dataSchema: IntentResolutionReport.promptDataSchema, userID: "alice",
                    conversationID: request.conversationID, intentID: "older", causationID: request.id,
                    payload: older),
                to: pipeline.topics.prompts, signedWith: testStageKeys)
            let (changedStatus, changed, changedOutput) = try await replay()
            #expect(changedStatus == 1, "\(changedOutput)")
            let change = try #require(changed?.changes.first { $0.intentID == "older" }, "\(changedOutput)")
            #expect(change.before == ["recipients[0]": "disambiguation [sunbo, mallory]"])
            #expect(change.after == ["recipients[0]": "success"])

            // Replayed under another configuration than the worker's (other messaging services):
            // every decision recorded the worker's, so none is compared and none reported changed.
            let (otherStatus, other, otherOutput) = try await OperatorCommandTests.runJSON(
                pipeline.broker, ["replay", "resolve", "--json", "--messaging-services", "sms"],
                as: ResolveReplay.Report.self, environment: ["INTENT_TOPIC_PREFIX": pipeline.topics.prefix])
            #expect(otherStatus == 0, "\(otherOutput)")
            #expect(other?.replayed == 0 && other?.changes == [], "\(otherOutput)")
            #expect(other?.otherConfiguration == 2, "\(otherOutput)")
        }
    }
}
