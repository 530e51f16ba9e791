import Kafka
import Synchronization

/// Fault injection for the ordering test: a worker run with a budget of
/// ``stateRoundFailures`` treats that many state-round acknowledgements as
/// failed (as if the broker had timed out), so a test can look at the broker
/// while a state round is being retried and see that nothing reporting on it
/// was published. Bound per task (the test's worker), never in production;
/// unset, it costs one task-local read per batch.
public enum PublishFaults {
    /// Failures left to inject; nil: none.
    @TaskLocal public static var stateRoundFailures: Budget?

    public final class Budget: Sendable {
        private let remaining: Atomic<Int>
        public init(_ failures: Int) { remaining = Atomic(failures) }

        /// Takes one failure from the budget, if any is left.
        func take() -> Bool {
            remaining.wrappingSubtract(1, ordering: .relaxed).oldValue > 0
        }
    }

    /// Throws a transient delivery failure while the budget lasts.
    static func checkStateRound() throws(KafkaError) {
        guard let budget = stateRoundFailures, budget.take() else { return }
        throw KafkaError.client(
            "injected by PublishFaults", operation: "deliver the state round", code: .messageTimedOut)
    }
}
