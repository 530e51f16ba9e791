import BrokerTestSupport
import Foundation
import IntentEvents
import Kafka
import Payments
import PipelineAudit
import PipelineTestSupport
import PipelineTools
import PipelineTopics
import Testing

/// A holder of the payments stage's key shows a requester paid while no money moved: a
/// `requestPaid` on the requester's partition naming a transfer that was never posted.
/// Every ledger reader applies it (the requester's member keeps only that side of the
/// request, and it is well formed), so the requester's app shows the request paid; only
/// the audit, reading the payer's partition too, can tell. Read from the broker as
/// `intentctl audit` reads it.
@Suite("The audit finds a payment request shown paid with no payment", .heavyTimeLimit(minutes: 2))
struct RequestAuditBrokerTests {
    @Test("a requestPaid without a posted payment of its request is a finding, and the only one")
    func paidWithoutPayment() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-request")
            let amount = money("50", "CNY")
            let requestID = "pr-bob-r1"
            let decided = Timestamp(Date())
            let proposed = LedgerEvent(
                id: "proposed-r1", kind: .requestProposed, userID: "bob", intentID: "r1", requestID: requestID,
                counterpartyUserID: "alice", counterpartyAccount: "+15550100", amount: amount)
            let created = LedgerEvent(
                id: "created-r1", kind: .requestCreated, userID: "bob", intentID: "r1", requestID: requestID,
                decidedBy: "answer-r1", decidedAt: decided)
            let received = LedgerEvent(
                id: "received-r1", kind: .requestReceived, userID: "alice", intentID: "r1", requestID: requestID,
                counterpartyUserID: "bob", amount: amount, decidedBy: "answer-r1", decidedAt: decided)
            // Alice held the money for it, and never posted it.
            let hold = LedgerEvent(
                id: "hold-p1", kind: .hold, userID: "alice", intentID: "p1", transferID: "t-p1", requestID: requestID,
                entries: LedgerEntry.move(amount, from: Ledger.available("alice"), to: Ledger.held("alice")),
                counterpartyUserID: "bob", counterpartyAccount: "bob@example.com", amount: amount)
            let deposit = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: money("100", "CNY"))
            let forged = LedgerEvent(
                id: "paid-r1", kind: .requestPaid, userID: "bob", intentID: "r1", transferID: "t-p1",
                requestID: requestID, counterpartyUserID: "alice", decidedBy: "answer-p1", decidedAt: decided)
            try await SingleRecordTopics.send(
                [deposit, proposed, created, received, hold, forged].map { event in
                    KafkaProducerMessage(
                        topic: topics.ledger, event: event.envelope(source: PipelineSource.payments, time: Date()),
                        signedWith: testStageKeys)
                }, broker)
            let report = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger)
            let found = report.findings.filter { $0.hasPrefix("payment request") }
            #expect(
                found == [
                    "payment request \(requestID): paid-r1 says it was paid by alice with transfer t-p1, which is no posted payment of it"
                ], "\(report.findings)")
            // Nothing else in that history is wrong: the hold alone is held money, the request
            // pending on Alice's side and "paid" on Bob's.
            #expect(report.heldTransfers == 1)
            #expect(!report.findings.contains { $0.contains("breaks the ledger") }, "\(report.findings)")
        }
    }
}
