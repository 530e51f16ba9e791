import Kafka
import Synchronization

/// Fault injection for the ordering test: a worker configured with a budget of
/// state-round failures treats that many state-round acknowledgements as failed (as
/// if the broker had timed out), so a test can look at the broker while a state
/// round is being retried and see that nothing reporting on it was published. An
/// argument of the worker's configuration (``StageWorker/Configuration/faults``),
/// nil in production.
public final class PublishFaults: Sendable {
    private let remaining: Atomic<Int>

    public init(stateRoundFailures: Int) { remaining = Atomic(stateRoundFailures) }

    /// Throws a transient delivery failure while the budget lasts.
    func checkStateRound() throws(KafkaError) {
        guard remaining.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 else { return }
        throw KafkaError.client(
            "injected by PublishFaults", operation: "deliver the state round", code: .messageTimedOut)
    }
}
