import IntentEvents
import Kafka

/// A consumed record a stage (or a follower) refused, and why.
typealias StageRejection = (message: KafkaConsumerMessage, error: EventDecodingError)

/// One batch's outputs, sorted into the two publishing rounds: state first,
/// then notices (see ``StageWorker``).
struct OutgoingBatch {
    /// The input records decided; their offsets are stored once both rounds are acknowledged.
    var consumed: [KafkaConsumerMessage]
    var state: [KafkaProducerMessage] = []
    /// Dead letters among `state`, by index: the records they park and why.
    var parked: [Int: StageRejection] = [:]
    var notices: [KafkaProducerMessage] = []

    var isEmpty: Bool { consumed.isEmpty && state.isEmpty && notices.isEmpty }
}

/// The batches a worker has handed to the producer and not yet finished, so
/// it can decide the next batch while the broker acknowledges these. At most
/// one batch per round, and a batch's state is handed over only after the
/// previous batch's state is acknowledged, which keeps the orders a
/// sequential worker has:
/// - a batch's notices follow the acknowledgement of its own state and of
///   every earlier batch's state (a response never reports a decision that
///   could still be lost);
/// - state records reach the state topics in decision order even when a round
///   fails and is sent again (a retried hold can never land after the
///   post of a later batch);
/// - input offsets are stored batch by batch, in order, after both rounds.
struct PublishingPipeline {
    /// The newest batch: its state round is in flight.
    var state: (OutgoingBatch, KafkaPendingDelivery)?
    /// The batch before it: state acknowledged, notices in flight (nil delivery: none to send).
    var notices: (OutgoingBatch, KafkaPendingDelivery?)?

    var isEmpty: Bool { state == nil && notices == nil }
}
