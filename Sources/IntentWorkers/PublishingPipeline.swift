import IntentEvents
import Kafka
import StageRuntime

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

/// The Kafka host's side of the batches a ``StageRuntime/StageRuntime`` is moving
/// through the two publishing rounds (the runtime keeps their order; see ``StageWorker``):
/// the records polled and not decided yet, each batch's records, the deliveries the
/// host waits for, and where a state round's claimed records landed (for the read-back).
struct PublishingPipeline {
    /// Polled and not decided yet (the runtime holds them while it drains).
    var held: [KafkaConsumerMessage] = []
    var batches: [BatchID: OutgoingBatch] = [:]
    var deliveries: [StageTicket: KafkaPendingDelivery] = [:]
    /// With fencing: the last offset per partition of each batch's state records on the claimed topic.
    var written: [BatchID: [Int32: Int64]] = [:]
    /// With fencing: the state rounds being read back, by their first batch.
    var readBacks: [BatchID: RunningReadBack] = [:]
    /// The last transient failure, for the message when the runtime gives up.
    var lastError: (any Error)?

    /// Read-backs finished by now, taken out: reported without waiting (oldest first, as
    /// the runtime sends notices in that order anyway).
    mutating func finishedReadBacks() -> [(BatchID, RunningReadBack)] {
        let done = readBacks.filter { $0.value.isDone }.sorted { $0.key < $1.key }
        for (id, _) in done { readBacks[id] = nil }
        return done.map { ($0.key, $0.value) }
    }

    /// Deliveries complete by now, taken out: reported without waiting.
    mutating func completed() -> [(StageTicket, KafkaPendingDelivery)] {
        let done = deliveries.filter { $0.value.isComplete }
        for ticket in done.keys { deliveries[ticket] = nil }
        return done.map { ($0.key, $0.value) }
    }
}
