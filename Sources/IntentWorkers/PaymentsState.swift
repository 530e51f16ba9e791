import IntentEvents
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

    init(idempotencyHorizon: Duration) {
        horizon = idempotencyHorizon
        ledgers = PartitionedState { Ledger(idempotencyHorizon: idempotencyHorizon) }
    }

    /// The followers a payments or confirm worker needs: its ledger partitions (with
    /// their snapshots, which only the payments worker writes) and the accounts directory.
    func followers<Stage>(
        _ configuration: StageConfiguration<Stage>, writesSnapshots: Bool, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> [TopicFollower] {
        [
            try ledgerFollower(
                configuration: configuration.kafka, topic: configuration.topics.ledger, keys: configuration.keys,
                logger: logger,
                snapshots: snapshots(
                    configuration: configuration.kafka, topics: configuration.topics, keys: configuration.keys,
                    writes: writesSnapshots, interval: configuration.snapshotInterval),
                reject: reject),
            try directoryFollower(
                configuration: configuration.kafka, topic: configuration.topics.accounts, keys: configuration.keys,
                logger: logger, reject: reject),
        ]
    }

    /// The ledger partitions' snapshots: written by the payments worker, read by both.
    private func snapshots(
        configuration: KafkaConfiguration, topics: PipelineTopics, keys: EventAuthenticator, writes: Bool,
        interval: Duration
    ) -> StateSnapshots {
        let ledgers = self.ledgers
        let horizon = self.horizon
        let store = SnapshotStore(
            topic: topics.ledgerSnapshots, stateTopic: topics.ledger, writer: PipelineSource.payments, keys: keys,
            configuration: configuration)
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
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, logger: Logger,
        snapshots: StateSnapshots?,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let (event, time) = try LedgerRecord.read(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
                let refusal = self.ledgers.withValue(in: message.partition) { ledger -> Ledger.ApplyError? in
                    do throws(Ledger.ApplyError) {
                        try ledger.apply(event, at: time, checkingBalances: false)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let refusal {
                    logger.error(
                        "ledger event refused on replay", metadata: ["event": "\(event.id)", "error": "\(refusal)"])
                }
            }, reject: reject, forget: ledgers.forget, snapshots: snapshots)
    }

    /// Follows the whole accounts topic: account openings and closings signed by the
    /// ledger operator, under the directory's rules (``AccountDirectory``): one it ignores
    /// (a replayed version, a handle another account holds) is logged and counted.
    private func directoryFollower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        let ignored = IgnoredAccountRecords(logger: logger, metrics: Telemetry.current.metrics)
        return try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try AccountRecord.decode(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
                if let refusal = self.directory.withLock({ $0.apply(event) }) {
                    ignored.record(
                        reason: refusal.reason, detail: refusal.description, event: event.id, user: event.userID,
                        kind: event.kind.rawValue)
                }
            }, reject: reject)
    }
}
