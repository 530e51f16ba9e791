public import IntentWorkers
public import Kafka
public import PipelineTopics
import Synchronization

/// Fault injection for the ordering test: a stage worker given these hooks treats that
/// many state-round acknowledgements as failed (as if the broker had timed out), so a
/// test can look at the broker while a state round is being retried and see that nothing
/// reporting on it was published. The host's ``StageHostHooks`` argument, never a
/// production worker's.
public final class PublishFaults: StageHostHooks {
    private let remaining: Atomic<Int>

    public init(stateRoundFailures: Int) { remaining = Atomic(stateRoundFailures) }

    /// Throws a transient delivery failure while the budget lasts.
    public func stateRoundDelivered() throws(KafkaError) {
        guard remaining.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 else { return }
        throw KafkaError.client(
            "injected by PublishFaults", operation: "deliver the state round", code: .messageTimedOut)
    }

    public func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics) {}
    public func betweenPublishRounds() {}
}
