import CoreMetrics
import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import Payments
import PipelineTopics
import Synchronization
import Telemetry

/// What a payments or confirm member holds: the ledger of each input
/// partition it owns (the users whose records it decides on), fed by those
/// partitions of the ledger topic, and the accounts directory whole, fed by
/// the compacted accounts topic (a payee may be anyone's).
final class PaymentsState: Sendable {
    private let ledgers: PartitionedState<Ledger>
    private let directory = Mutex(AccountDirectory())
    private let horizon: Duration
    /// This process's name in its claims (``LedgerOwner/member``): a restart claims anew.
    private let member = UUID().uuidString.lowercased()
    /// Claims sent and not yet read back, by partition.
    private let pendingClaims = Mutex<[Int32: LedgerOwner]>([:])
    /// Partitions where a record this member wrote was read back behind another member's
    /// newer claim: refused by every reader (``PartitionOwnership/overtaken``).
    private let overtaken = Mutex<Set<Int32>>([])

    init(idempotencyHorizon: Duration) {
        horizon = idempotencyHorizon
        ledgers = PartitionedState { Ledger(idempotencyHorizon: idempotencyHorizon) }
    }

    /// The followers a payments or confirm worker needs: its ledger partitions (with
    /// their snapshots, which only the payments worker writes) and the accounts directory.
    /// `trust`: the payments worker, which moves money on what it reads, checks signatures;
    /// the confirm worker, whose reading only pre-checks a proposal that the payments
    /// worker decides again, checks view signatures and holds no ledger writer's key.
    func followers<Stage>(
        _ configuration: StageConfiguration<Stage>, writesSnapshots: Bool, trust: RecordTrust,
        readsBack: Bool = false, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> [TopicFollower] {
        [
            try ledgerFollower(
                configuration: configuration.kafka, topic: configuration.topics.ledger,
                keys: trust.verifying(configuration.keys), trust: trust, logger: logger,
                snapshots: snapshots(
                    configuration: configuration.kafka, topics: configuration.topics, keys: configuration.keys,
                    trust: trust, writes: writesSnapshots, interval: configuration.snapshotInterval),
                fetchWait: readsBack ? .milliseconds(10) : TopicFollower.fetchWait, retry: configuration.retry,
                reject: reject),
            try directoryFollower(
                configuration: configuration.kafka, topic: configuration.topics.accounts,
                keys: trust.verifying(configuration.keys), trust: trust, retry: configuration.retry,
                metrics: configuration.telemetry.metrics, logger: logger, reject: reject),
        ]
    }

    /// The ledger partitions' snapshots: written by the payments worker, read by both.
    private func snapshots(
        configuration: KafkaConfiguration, topics: PipelineTopics, keys: EventAuthenticator, trust: RecordTrust,
        writes: Bool, interval: Duration
    ) -> StateSnapshots {
        let ledgers = self.ledgers
        let horizon = self.horizon
        let store = SnapshotStore(
            topic: topics.ledgerSnapshots, stateTopic: topics.ledger, writer: PipelineSource.payments, keys: keys,
            trust: trust, configuration: configuration)
        return StateSnapshots(
            store: store, writes: writes, interval: interval,
            capture: { (partition: Int32) -> (@Sendable () -> [UInt8])? in
                guard let ledger = ledgers.value(in: partition) else { return nil }
                return { ledger.snapshotBytes() }
            },
            install: { (partition: Int32, bytes: [UInt8]) throws in
                var ledger = try Ledger(snapshotBytes: bytes)
                // The horizon configured now applies, not the one the writer had.
                ledger.idempotencyHorizon = horizon
                ledgers.install(ledger, in: partition)
            })
    }

    /// Fencing for the payments worker: it claims each ledger partition it gains and
    /// stamps what it writes there with the claim (``Ledger/writer``).
    func ownership(ledgerTopic: String) -> PartitionOwnership {
        let ledgers = self.ledgers
        let member = self.member
        return PartitionOwnership(
            topic: ledgerTopic,
            claims: { partitions, partitionCount in
                partitions.sorted().compactMap { partition -> (Destination, EventEnvelope)? in
                    // Held under a claim that is still the latest: nothing to claim.
                    guard
                        let claim = ledgers.withValue(in: partition, { $0.claimNeeded(on: partition, member: member) })
                    else { return nil }
                    self.pendingClaims.withLock { $0[partition] = claim }
                    let envelope = claim.claimEnvelope(time: Date()) {
                        KafkaPartitioner.partition(forKey: $0, partitions: partitionCount)
                    }
                    return (.ledger, envelope)
                }
            },
            adopt: { partitions in
                var lost: Set<Int32> = []
                for partition in partitions {
                    guard let claim = self.pendingClaims.withLock({ $0.removeValue(forKey: partition) }) else {
                        continue
                    }
                    if !ledgers.withValue(in: partition, { $0.adopt(claim) }) { lost.insert(partition) }
                }
                return lost
            },
            fenced: { partitions in partitions.filter(self.isFenced) },
            overtaken: { partitions in self.overtaken.withLock { $0.intersection(partitions) } })
    }

    /// Whether another member's claim on `partition` is newer than this member's (``Ledger/isFenced``).
    private func isFenced(_ partition: Int32) -> Bool {
        ledgers.withValue(in: partition) { $0.isFenced }
    }

    /// Decides under both locks (directory, then ledger; followers take one each):
    /// a copy taken out of them would make a follower's next write duplicate the
    /// whole table (copy on write), once per record.
    func withLedger<Result: Sendable>(
        in partition: Int32, _ body: (inout Ledger, AccountDirectory) -> Result
    ) -> Result {
        directory.withLock { accounts in
            ledgers.withValue(in: partition) { body(&$0, accounts) }
        }
    }

    /// The same over every partition held, in partition order (the expiry sweep).
    func withEachLedger<Result: Sendable>(_ body: (inout Ledger) -> Result) -> [Result] {
        ledgers.withEachValue(body)
    }

    /// Follows the ledger partitions of the owned input partitions. Each event
    /// is applied in replay mode (see ``Ledger/apply(_:checkingBalances:)``); an
    /// event the ledger refuses is logged, one not written by an allowed writer
    /// (``LedgerRecord``) dead-lettered.
    private func ledgerFollower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, trust: RecordTrust,
        logger: Logger, snapshots: StateSnapshots?, fetchWait: Duration, retry: RetryPolicy,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let (event, time) = try LedgerRecord.read(
                    key: message.keyString, value: message.value, signature: trust.signature(of: message),
                    keys: keys)
                let refusal = self.ledgers.withValue(in: message.partition) { ledger -> Ledger.ApplyError? in
                    do throws(Ledger.ApplyError) {
                        try ledger.apply(event, at: time, checkingBalances: false)
                        return nil
                    } catch {
                        return error
                    }
                }
                // Read back behind another member's claim: what this member wrote there counts
                // for nothing. Or an event under an id this member already decided with (an id
                // written ahead): if it came first, every reader refuses this member's event.
                // Either way its notices must not go (the restarted member decides from the topic).
                switch refusal {
                case .fenced(_, let writer, _)
                where writer == self.ledgers.withValue(in: message.partition, { $0.writer?.description }):
                    self.overtaken.withLock { _ = $0.insert(message.partition) }
                case .idReused:
                    self.overtaken.withLock { _ = $0.insert(message.partition) }
                default: break
                }
                if let refusal {
                    logger.error(
                        "ledger event refused on replay", metadata: ["event": "\(event.id)", "error": "\(refusal)"])
                }
            }, reject: reject, forget: ledgers.forget, snapshots: snapshots, fetchWait: fetchWait,
            passedOver: { message in
                // Applied when decided, so not again; but decided under a claim still the latest here?
                if self.isFenced(message.partition) {
                    self.overtaken.withLock { _ = $0.insert(message.partition) }
                }
            }, retry: retry)
    }

    /// Follows the whole accounts topic: account openings and closings signed by the
    /// ledger operator, under the directory's rules (``AccountDirectory``): one it ignores
    /// (a replayed version, a handle another account holds) is logged and counted.
    private func directoryFollower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, trust: RecordTrust,
        retry: RetryPolicy, metrics: any MetricsFactory, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        let ignored = IgnoredAccountRecords(logger: logger, metrics: metrics)
        return try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try AccountRecord.decode(
                    key: message.keyString, value: message.value, signature: trust.signature(of: message),
                    keys: keys)
                if let refusal = self.directory.withLock({ $0.apply(event) }) {
                    ignored.record(
                        reason: refusal.reason, detail: refusal.description, event: event.id, user: event.userID,
                        kind: event.kind.rawValue)
                }
            }, reject: reject, retry: retry)
    }
}
