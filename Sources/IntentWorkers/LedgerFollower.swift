import IntentEvents
import Kafka
import Logging
import Payments

extension TopicFollower {
    /// Follows the ledger topic, handing each event to `apply` (which applies
    /// it in replay mode, see ``Ledger/apply(_:checkingBalances:)``).
    static func ledger(
        configuration: KafkaConfiguration, topic: String, logger: Logger,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void,
        apply: @escaping @Sendable (LedgerEvent) -> Result<Bool, Ledger.ApplyError>
    ) throws(KafkaError) -> TopicFollower {
        try TopicFollower(
            configuration: configuration, topic: topic, logger: logger,
            apply: { message throws(EventDecodingError) in
                let envelope = try IncomingEvent.decode(
                    key: message.keyString, value: message.value, types: [LedgerEvent.type], requireIntentID: false)
                let event = try envelope.decodeData(as: LedgerEvent.self)
                if case .failure(let error) = apply(event) {
                    logger.error(
                        "ledger event refused on replay",
                        metadata: ["event": "\(event.id)", "error": "\(error)"])
                }
            }, reject: reject)
    }
}
