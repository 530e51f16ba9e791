import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import PipelineAudit
import PipelineTestSupport
import Testing

/// `intentctl audit --from/--to` against payments made before, across and after a
/// point in time, on a real broker.
@Suite("Audit of a period, against a local broker", .heavyTimeLimit(minutes: 5))
struct AuditWindowTests {
    @Test("a period audits the intents answered in it and lists those begun before it")
    func period() async throws {
        try await withMoneyPipeline { pipeline in
            let start = Date()
            func pay(_ intentID: String) async throws -> ConfirmationRequest {
                try await pipeline.requestSigned(
                    pipeline.signed(
                        intentID,
                        .sendPayment(
                            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money("10", "CNY")))))
                return try await pipeline.event(for: intentID, type: ConfirmationRequest.type)
                    .decodeData(as: ConfirmationRequest.self)
            }
            // Before the point: one payment done, one asked and not yet answered.
            #expect(try await pipeline.answer("before", try await pay("before").binding, .confirmed).code == .success)
            let across = try await pay("across")
            let point = Date()
            // After it: the answer to the one asked before, and a whole new payment.
            #expect(try await pipeline.answer("across", across.binding, .confirmed).code == .success)
            #expect(try await pipeline.answer("after", try await pay("after").binding, .confirmed).code == .success)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            try await OperatorCommandTests.withStageKeyFile { keyFile in
                func audit(_ arguments: [String]) async throws -> (Int32, PipelineAudit.Report?, String) {
                    try await OperatorCommandTests.runJSON(
                        pipeline.broker, ["audit", "--stage-keys", keyFile.path] + arguments,
                        as: PipelineAudit.Report.self,
                        environment: ["INTENT_TOPIC_PREFIX": pipeline.topics.prefix])
                }
                let (status, after, output) = try await audit(["--from", EventTime.format(point)])
                #expect(status == 0, "\(output)")
                #expect(after?.intents == 2, "\(output)")  // across and after answered in the period
                #expect(after?.window?.intentsBeganBefore == ["across"], "\(output)")
                #expect(after?.window?.located["intents.responses"] != nil, "\(output)")
                #expect(after?.integrity?.findings == [], "\(output)")

                let (untilStatus, until, untilOutput) = try await audit([
                    "--from", EventTime.format(start.addingTimeInterval(-1)), "--to", EventTime.format(point),
                ])
                #expect(untilStatus == 0, "\(untilOutput)")
                #expect(until?.intents == 1, "\(untilOutput)")  // only "before" was answered before the point
                #expect(until?.window?.intentsBeganBefore == [], "\(untilOutput)")

                let (badStatus, _, badOutput) = try await audit(["--to", "1h"])
                #expect(badStatus == 64, "\(badOutput)")
                #expect(badOutput.contains("--to needs --from"), "\(badOutput)")
            }
        }
    }
}
