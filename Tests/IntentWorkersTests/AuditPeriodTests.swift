import BrokerTestSupport
import Foundation
import IntentEvents
import Kafka
import Payments
import PipelineAudit
import PipelineTestSupport
import PipelineTopics
import Testing

@testable import PipelineTools

/// An audit of a period (`intentctl audit --from --to`) ended each partition's read at the
/// broker's time index for `--to`: the first record dated after it. One record dated in the
/// future (a forger's date, or a producer's clock) then ended every period's read of its
/// partition, and what came after it was never audited (SECURITY.md's known gaps, the
/// audit's reach). A period still ends at the first record dated after `--to`, but a record
/// dated in the future is stepped over (and is a finding of its own), so the period stays a
/// prefix of each partition, as the ledger's sums need.
@Suite("A period's audit reads past a record dated in the future", .heavyTimeLimit(minutes: 2))
struct AuditPeriodTests {
    @Test("a ledger record after a future-dated one is audited in the period, and the future date is a finding")
    func pastAFutureDate() async throws {
        try await withBroker { broker in
            let topics = try await SingleRecordTopics.create(broker, "audit-period")
            let now = Date()
            let deposit = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: money("100", "CNY"))
            // The same id written again with other contents: a finding whenever it is read.
            let rewritten = LedgerEvent.deposit(id: "deposit-alice", userID: "alice", amount: money("900", "CNY"))
            let future = LedgerEvent.deposit(id: "deposit-bob", userID: "bob", amount: money("5", "CNY"))
            let records: [(LedgerEvent, Date)] = [
                (deposit, now.addingTimeInterval(-3600)), (future, now.addingTimeInterval(10 * 86_400)),
                (rewritten, now.addingTimeInterval(-1800)),
            ]
            try await SingleRecordTopics.send(
                records.map { event, time in
                    var message = KafkaProducerMessage(
                        topic: topics.ledger, event: event.envelope(source: PipelineSource.ledgerOperator, time: time),
                        signedWith: testStageKeys)
                    message.timestamp = time
                    return message
                }, broker)
            let rewrite = "ledger event deposit-alice was written twice with different contents"
            let futureFinding = "1 records are dated after their topic's read began"
            let period = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger,
                window: TopicAudit.Window(from: now.addingTimeInterval(-7200), to: now.addingTimeInterval(-60)))
            #expect(period.findings.contains(rewrite), "\(period.findings)")
            #expect(period.findings.contains { $0.hasPrefix(futureFinding) }, "\(period.findings)")
            // Bob's future-dated deposit is not the period's: no money of his in it.
            #expect(!period.findings.contains { $0.contains("bob") }, "\(period.findings)")
            // A period that ends before the rewrite leaves it out; the whole history has it.
            let earlier = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger,
                window: TopicAudit.Window(from: now.addingTimeInterval(-7200), to: now.addingTimeInterval(-2700)))
            #expect(!earlier.findings.contains(rewrite), "\(earlier.findings)")
            let whole = try await TopicAudit.run(
                topics: topics, configuration: clientConfiguration(broker), logger: testLogger)
            #expect(whole.findings.contains(rewrite), "\(whole.findings)")
            #expect(whole.findings.contains { $0.hasPrefix(futureFinding) }, "\(whole.findings)")
        }
    }

    /// Producers' clocks differ (the ledger operator's tool and the payments members write the
    /// same partitions): a period that kept every record dated up to its end could keep a hold
    /// and drop the deposit it spent, dated a little later by a fast clock. It is a prefix.
    @Test("a period is a prefix of each partition: it ends at the first record dated after it, but for the future")
    func periodIsAPrefix() {
        let to = Date(timeIntervalSince1970: 1_800_000_000)
        var cut = TopicAudit.PeriodCut(to: to, futureLimit: to.addingTimeInterval(3600))
        let admitted = [
            (0, to.addingTimeInterval(-10)),  // in
            (0, to.addingTimeInterval(86_400)),  // in the future: stepped over
            (0, to.addingTimeInterval(-5)),  // in
            (1, nil),  // no time: in
            (0, to.addingTimeInterval(30)),  // after the period: ends partition 0
            (0, to.addingTimeInterval(-1)),  // after the end: out, though dated inside
            (1, to.addingTimeInterval(-1)),  // partition 1 goes on
        ].map { cut.admits($0.1, partition: Int32($0.0)) }
        #expect(admitted == [true, false, true, true, false, false, true])
        var open = TopicAudit.PeriodCut(to: nil, futureLimit: to)
        let future = open.admits(to.addingTimeInterval(86_400), partition: 0)
        #expect(future, "no end: every record, as before")
    }
}
