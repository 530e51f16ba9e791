import BrokerTestSupport
import Foundation
import IntentEvents
import Intents
import Payments
import PipelineTestSupport
import Testing

/// Attacks 42 and 43, the two ways to make the ledger forget what it would take again:
/// - 42: a ledger record appended to the ledger topic again once every member has forgotten
///   its id (the idempotency horizon, a day of ledger time). The record is the operator's
///   own, signed as it was, so no signature check can tell; the ledger refuses any event
///   dated before the oldest hour it still remembers (`beyondMemory`), so the copy moves nothing.
/// - 43: a user's answer dated hours ahead, which dates the post it decides and so moves the
///   ledger's clock on (until it forgets a payee's credit it would still take again from the
///   input). Answers, declines and effects may be ahead only by clock skew, as requests.
/// Both run through every worker, as a holder of a voice key and of produce rights would try them.
@Suite("A forgotten ledger record appended again, against a local broker", .heavyTimeLimit(minutes: 5))
struct ForgottenLedgerRecordTests {
    @Test("a deposit appended again three days after it was applied adds nothing: it cannot be spent twice")
    func depositAppendedAgainAfterTheHorizon() async throws {
        let threeDaysAgo = Date().addingTimeInterval(-72 * 3600)
        // Alice's account opened and 100 CNY deposited three days ago, by the operator.
        let deposit = LedgerEvent.deposit(id: "deposit-three-days-ago", userID: "alice", amount: money("100", "CNY"))
        let records = (LedgerEvent.opening(userID: "alice", handles: ["+1 555 0100"]) + [deposit]).map {
            $0.envelope(source: PipelineSource.ledgerOperator, time: threeDaysAgo)
        }
        let publishThreeDaysAgo: (PipelineHarness) async throws -> Void = { pipeline in
            for record in records {
                try await pipeline.publish(record, to: pipeline.topics.ledger, signedWith: testStageKeys)
            }
        }
        // After today's opening (1,000 CNY): the ledger's clock is three days on, the
        // deposit's id forgotten. The very same record, appended again.
        let appendDepositAgain: (PipelineHarness) async throws -> Void = { pipeline in
            try await pipeline.publish(
                records[records.count - 1], to: pipeline.topics.ledger, signedWith: testStageKeys)
        }
        try await withMoneyPipeline(first: publishThreeDaysAgo, seed: appendDepositAgain) { pipeline in
            // An answer dated an hour ahead is parked as stale and decides nothing; the same
            // answer dated now pays.
            try await pipeline.requestSigned(pipeline.signed("ahead", Self.payment("10")))
            let binding = try await pipeline.event(for: "ahead", type: ConfirmationRequest.type)
                .decodeData(as: ConfirmationRequest.self).binding
            var letters = DeadLetterTally(pipeline)
            try await pipeline.answer("ahead", binding, .confirmed, id: "answer-ahead", at: Date() + 3600, wait: false)
            try await letters.expect(["stale"])
            #expect(try await pipeline.finalResponses(for: "ahead").isEmpty)
            #expect(try await pipeline.answer("ahead", binding, .confirmed).code == .success)

            // Alice holds 1,090 CNY: the opening's 1,000 and the old deposit once, less the 10.
            // With the copy counted she would hold 1,190, and 1,150 would go through.
            #expect(try await Self.pay(pipeline, "more-than-once", "1150") == .failureInsufficientFunds)
            #expect(try await Self.pay(pipeline, "everything", "1090") == .success)
            try await pipeline.settlePayments()
            try await pipeline.stopWorker()
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "alice", "CNY") == Money.zero("CNY"))
            #expect(ledger.availableBalance(of: "sunbo", "CNY") == Money(money("1100", "CNY")))
            #expect(try await pipeline.audit().findings == [])
        }
    }

    static func payment(_ amount: String) -> Intent {
        .sendPayment(SendPaymentIntent(payee: Person(spoken: "孙波"), currencyAmount: money(amount, "CNY")))
    }

    /// Alice asks to pay 孙波 `amount` CNY and confirms if she is asked: the final response's code
    /// (the confirm stage may refuse at once, the payments stage after the answer).
    static func pay(_ pipeline: PipelineHarness, _ intentID: String, _ amount: String) async throws
        -> ResponseCode
    {
        try await pipeline.requestSigned(pipeline.signed(intentID, payment(amount)))
        let first = try await pipeline.event(for: intentID, anyOf: [ConfirmationRequest.type, IntentResponse.type])
        guard first.type == ConfirmationRequest.type else { return try first.decodeData(as: IntentResponse.self).code }
        let binding = try first.decodeData(as: ConfirmationRequest.self).binding
        return try await pipeline.answer(intentID, binding, .confirmed).code
    }
}
