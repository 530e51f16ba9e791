import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Payments
import PipelineTestSupport
import PipelineTools
import Testing

/// `intentctl replay confirm` on a real broker: each payment decision is taken
/// again on its payer's ledger as the decision saw it, with the limits given.
@Suite("Re-deriving confirm decisions, against a local broker", .heavyTimeLimit(minutes: 5))
struct ReplayConfirmTests {
    @Test("a replay sees each decision's own ledger version; other limits list the decisions they change")
    func replay() async throws {
        try await withMoneyPipeline { pipeline in
            func pay(_ intentID: String, _ amount: String) async throws -> EventEnvelope {
                try await pipeline.requestSigned(
                    pipeline.signed(
                        intentID,
                        .sendPayment(
                            SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money(amount, "CNY")))))
                return try await pipeline.event(for: intentID, type: IntentResolutionReport.resolvedType)
            }
            // 100 of Alice's 1,000 CNY: ready, confirmed, paid.
            _ = try await pay("small", "100")
            let request = try await pipeline.event(for: "small", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self)
            #expect(try await pipeline.answer("small", request.binding, .confirmed).code == .success)
            // 5,000 of the 900 left: refused at confirm.
            _ = try await pay("large", "5000")
            let response = try await pipeline.event(for: "large", type: IntentResponse.type)
                .decodeData(as: IntentResponse.self)
            #expect(response.code == .failureInsufficientFunds)
            // Said by the payments stage; the ledger version it saw is on confirm's refusal,
            // which the replay below reads (a decision without one is not replayed).
            // Afterwards Alice gets 10,000 CNY: the refusal is still re-derived on the 900 it saw.
            try await pipeline.publish(
                LedgerEvent.deposit(id: "later", userID: "alice", amount: money("10000", "CNY"))
                    .envelope(source: PipelineSource.ledgerOperator, time: Date()),
                to: pipeline.topics.ledger, signedWith: testStageKeys)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            try await OperatorCommandTests.withStageKeyFile { keyFile in
                func replay(_ arguments: [String] = []) async throws -> (Int32, ConfirmReplay.Report?, String) {
                    try await OperatorCommandTests.runJSON(
                        pipeline.broker, ["replay", "confirm", "--json", "--stage-keys", keyFile.path] + arguments,
                        as: ConfirmReplay.Report.self, environment: ["INTENT_TOPIC_PREFIX": pipeline.topics.prefix])
                }
                let (status, same, output) = try await replay()
                #expect(status == 0, "\(output)")
                #expect(same?.replayed == 2, "\(output)")
                #expect(same?.unversioned == 0, "\(output)")
                #expect(same?.changes == [], "\(output)")

                // A maximum of 50 CNY: both payments would now be refused for their amount.
                let (lowered, changed, loweredOutput) = try await replay(["--currencies", "CNY:0.01:50"])
                #expect(lowered == 1, "\(loweredOutput)")
                #expect(changed?.changes.map(\.intentID) == ["large", "small"], "\(loweredOutput)")
                #expect(changed?.changes.first { $0.intentID == "small" }?.before == "ready", "\(loweredOutput)")
                #expect(
                    changed?.changes.allSatisfy {
                        $0.after.hasPrefix(ResponseCode.failurePaymentsAmountAboveMaximum.rawValue)
                    }
                        == true, "\(loweredOutput)")
            }
        }
    }
}
