import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import StageTestHost
import Testing

/// Resolve, confirm and payments workers together on a local broker: a
/// payment confirmed by the user moves money once; a declined one and one
/// without funds move nothing.
@Suite("Payments through resolve, confirm and payments workers", .heavyTimeLimit(minutes: 5))
struct PaymentsFlowTests {
    static let voiceKey = Array(repeating: UInt8(0x5a), count: 32)
    static let authenticator = EventAuthenticator(keys: ["/voice/test": voiceKey])

    @Test("confirmed: money moves once; declined: the hold is released; too much: refused at confirm")
    func payments() async throws {
        try await withPipeline { pipeline in
            try await pipeline.seedPayerAndPayee()
            try await pipeline.startWorker()
            try await pipeline.start(
                pipeline.confirmWorker(),
                PaymentsWorker(
                    configuration: PaymentsWorker.Configuration(
                        kafka: clientConfiguration(pipeline.broker), topics: pipeline.topics,
                        groupID: uniqueName("payments"),
                        stage: PaymentsStage(
                            bindingKey: BindingKey(Array(repeating: 1, count: 32)), authenticator: Self.authenticator,
                            stages: testStageKeys),
                        keys: testStageKeys, sessionTimeout: .seconds(6)),
                    logger: testLogger))

            func pay(_ intentID: String, _ amount: String) async throws {
                try await pipeline.request(
                    intentID, turn: 1,
                    .sendPayment(SendPaymentIntent(payee: Person(spoken: "Bob"), currencyAmount: money(amount, "CNY"))))
            }
            func answer(_ intentID: String, _ decision: ConfirmationAnswer.Decision) async throws -> IntentResponse {
                let request = try await pipeline.event(for: intentID, type: ConfirmationRequest.type)
                let binding = try request.decodeData(as: ConfirmationRequest.self).binding
                let event = EventEnvelope(
                    id: "answer-\(intentID)", source: "/voice/test", type: ConfirmationAnswer.type, time: Date(),
                    dataSchema: ConfirmationAnswer.dataSchema, userID: "u1", conversationID: "conversation-u1",
                    intentID: intentID, payload: ConfirmationAnswer(decision: decision, binding: binding))
                try await pipeline.publish(event, to: pipeline.topics.confirmations, signedWith: Self.authenticator)
                return try await pipeline.event(for: intentID, type: IntentResponse.type).decodeData(
                    as: IntentResponse.self)
            }

            try await pay("pay-1", "100")
            let paid = try await answer("pay-1", .confirmed)
            #expect(paid.code == .success)
            #expect(paid.transferID == Ledger.transferID(userID: "u1", intentID: "pay-1"))

            try await pay("pay-2", "30")
            let declined = try await answer("pay-2", .declined)
            #expect(declined.code == .failure)
            #expect(declined.reason == "declinedByUser")

            try await pay("pay-3", "5000")
            let refused = try await pipeline.event(for: "pay-3", type: IntentResponse.type)
            #expect(try refused.decodeData(as: IntentResponse.self).code == .failureInsufficientFunds)
            #expect(pipeline.outputs(for: "pay-3").allSatisfy { $0.type != ConfirmationRequest.type })

            try await pipeline.settlePayments()
            try await pipeline.stopWorker()

            // The ledger topic alone rebuilds the balances: 900 and 100, nothing held.
            let ledger = try await pipeline.rebuildLedger()
            #expect(ledger.availableBalance(of: "u1", "CNY") == Money(money("900", "CNY")))
            #expect(ledger.availableBalance(of: "bob", "CNY") == Money(money("100", "CNY")))
            #expect(ledger.balance(Ledger.held("u1"), "CNY") == Money.zero("CNY"))
            #expect(ledger.transfers.values.filter { $0.status == .posted }.count == 1)
        }
    }
}

extension PipelineHarness {
    /// A confirm worker on this harness's topics, with the payment tests' binding key (ones).
    func confirmWorker(logger: Logger = testLogger, faults: PublishFaults? = nil) -> ConfirmWorker {
        let configuration = ConfirmWorker.Configuration(
            kafka: clientConfiguration(broker), topics: topics, groupID: uniqueName("confirm"),
            stage: ConfirmStage(bindingKey: BindingKey(Array(repeating: 1, count: 32)), authenticator: testStageKeys),
            keys: testStageKeys, sessionTimeout: .seconds(6))
        return ConfirmWorker(configuration: configuration, logger: logger, hooks: faults ?? NoStageHostHooks())
    }

    /// Accounts: Alice (u1) with 1,000 CNY, Bob with none; Alice's contact for Bob has his handle.
    func seedPayerAndPayee() async throws {
        try await openAccount("u1", handle: "+1 555 0100", deposit: money("1000", "CNY"))
        try await openAccount("bob", handle: "bob@example.com")
        try await publishContacts(
            [Contact(id: "c-bob", displayName: "Bob Smith", handles: ["bob@example.com"])], user: "u1")
    }

    /// Waits, while the workers run, until every posted payment's credit is recorded by its
    /// payee's member (nothing left in clearing): a credit follows its payment's response.
    func settlePayments(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Each read is a full pass over the ledger topic: nothing else to wait on.
            let ledger = try await rebuildLedger()
            if ledger.allBalances.allSatisfy({ $0.account != Ledger.clearing || $0.money.micros == 0 }) { return }
        }
        throw Failure("payments still in clearing after \(timeout)")
    }

    /// Reads the whole ledger topic into a fresh ledger, as a restarted worker would.
    func rebuildLedger() async throws -> Ledger {
        let (events, unreadable) = try await TopicReader.events(
            of: topics.ledger, configuration: clientConfiguration(broker), logger: testLogger)
        #expect(unreadable == 0)
        var ledger = Ledger()
        for event in events { try ledger.apply(event.decodeData(as: LedgerEvent.self), checkingBalances: false) }
        return ledger
    }
}
