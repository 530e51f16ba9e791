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

/// A posted transfer's credit that never reaches its payee's member (its effect on the
/// confirmations topic, with nothing on the ledger) was counted "in transit" however old:
/// money kept in clearing for ever looked like money on its way. With one Kafka credential
/// for every workload, any of them can commit the payments group past the effect
/// (SECURITY.md, Known gaps); the audit now says when a credit has travelled too long.
@Suite("The audit finds credits on their way too long", .heavyTimeLimit(minutes: 2))
struct CreditTransitAuditTests {
    static let finding = "its credit has been on its way to the payee's member since"

    @Test("a credit on its way past the limit is a finding; within it, or with no limit, it is in transit")
    func overdueCredit() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-transit")
            // Posted two hours ago (the records' time), as the payments stage writes them.
            let posted = Date().addingTimeInterval(-2 * 3600)
            let amount = money("100", "CNY")
            let (hold, post, credit) = paidTransfer(
                "i1", from: "alice", to: "bob", account: "bob@example.com", amount: amount)
            try await SingleRecordTopics.send(
                [(topics.ledger, hold), (topics.ledger, post), (topics.confirmations, credit)].map { topic, event in
                    KafkaProducerMessage(
                        topic: topic, event: event.envelope(source: PipelineSource.payments, time: posted),
                        signedWith: testStageKeys)
                }, broker)

            func audit(limit: Duration?) async throws -> PipelineAudit.Report {
                try await TopicAudit.run(
                    topics: topics, configuration: clientConfiguration(broker), logger: testLogger,
                    creditTransitLimit: limit)
            }
            let overdue = try await audit(limit: .seconds(3600))
            #expect(overdue.creditsInTransit == 1)
            let found = overdue.findings.filter { $0.contains(Self.finding) }
            #expect(found.count == 1, "\(overdue.findings)")
            #expect(found.first?.hasPrefix("transfer t-i1: ") == true)
            #expect(found.first?.contains("longer than 60 min") == true)
            // The same records, within a three-hour limit or with none: on its way, no finding.
            for limit in [Duration.seconds(3 * 3600), nil] {
                let within = try await audit(limit: limit)
                #expect(within.creditsInTransit == 1)
                #expect(!within.findings.contains { $0.contains(Self.finding) }, "\(within.findings)")
                // Everything else the audit finds is the same.
                #expect(within.findings == overdue.findings.filter { !$0.contains(Self.finding) })
            }
        }
    }
}
