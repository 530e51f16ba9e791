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

/// The batches a worker has decided and not yet finished publishing, so it
/// keeps deciding while the broker acknowledges. The orders a one-batch-at-a-
/// time worker has still hold:
/// - one state round at a time: the batches decided while a state round is in
///   flight wait, and go together as the next round once it is acknowledged
///   (group commit), so state records reach the state topics in decision order
///   even when a round fails and is sent again (a retried hold can never land
///   after the post of a later batch);
/// - a batch's notices are handed over only once its state round, and so every
///   earlier one, is acknowledged (a response never reports a decision that
///   could still be lost);
/// - input offsets are stored batch by batch, in order, after both rounds.
struct PublishingPipeline {
    /// Decided; their state goes with the next state round.
    var waiting: [OutgoingBatch] = []
    /// The state round in flight: its batches, each with its own delivery, enqueued in order.
    var stateRound: [(batch: OutgoingBatch, delivery: KafkaPendingDelivery)] = []
    /// Batches whose state is acknowledged, oldest first, with their notices in flight
    /// (nil delivery: none to send).
    var noticeRounds: [(batch: OutgoingBatch, delivery: KafkaPendingDelivery?)] = []

    var isEmpty: Bool { waiting.isEmpty && stateRound.isEmpty && noticeRounds.isEmpty }

    /// How many batches may wait or be in flight before the worker stops
    /// deciding and waits for the broker: bounds memory and redo after a crash.
    static let maximumBatchesInFlight = 8

    var batchesInFlight: Int { waiting.count + stateRound.count + noticeRounds.count }
}
