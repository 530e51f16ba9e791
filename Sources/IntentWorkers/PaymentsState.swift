import IntentEvents
import Kafka
import Logging
import Payments
import Synchronization

/// What a payments or confirm member holds: the ledger of each input
/// partition it owns (the users whose records it decides on), fed by those
/// partitions of the ledger topic, and the accounts directory whole, fed by
/// the compacted accounts topic (a payee may be anyone's).
final class PaymentsState: Sendable {
    private let ledgers = PartitionedState { Ledger() }
    private let directory = Mutex(AccountDirectory())

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
    func ledgerFollower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try LedgerRecord.decode(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
                let refusal = self.ledgers.withValue(in: message.partition) { ledger -> Ledger.ApplyError? in
                    do throws(Ledger.ApplyError) {
                        try ledger.apply(event, checkingBalances: false)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let refusal {
                    logger.error(
                        "ledger event refused on replay", metadata: ["event": "\(event.id)", "error": "\(refusal)"])
                }
            }, reject: reject, forget: ledgers.forget)
    }

    /// Follows the whole accounts topic: account openings signed by the ledger operator.
    func directoryFollower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try LedgerRecord.decode(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
                guard event.kind == .accountOpened else {
                    throw EventDecodingError(
                        .schemaInvalid, field: "$.data.kind",
                        "the accounts topic holds account openings, not a \(event.kind.rawValue)")
                }
                self.directory.withLock { $0.apply(event) }
            }, reject: reject)
    }
}
