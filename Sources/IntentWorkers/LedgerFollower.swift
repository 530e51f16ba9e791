import IntentEvents
import Kafka
import Logging
import Payments
import Synchronization

/// The ledger a worker holds in memory, fed by the ledger topic.
final class SharedLedger: Sendable {
    private let ledger = Mutex(Ledger())

    func withLock<Result>(_ body: (inout Ledger) -> Result) -> Result {
        ledger.withLock { body(&$0) }
    }

    /// A follower of the ledger topic that applies each event in replay mode
    /// (see ``Ledger/apply(_:checkingBalances:)``); an event the ledger refuses is
    /// logged, one not written by an allowed writer (``LedgerRecord``) dead-lettered.
    func follower(
        configuration: KafkaConfiguration, topic: String, keys: EventAuthenticator, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try LedgerRecord.decode(
                    key: message.keyString, value: message.value, signature: message.signature, keys: keys)
                let refusal = self.ledger.withLock { ledger -> Ledger.ApplyError? in
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
            }, reject: reject)
    }
}
