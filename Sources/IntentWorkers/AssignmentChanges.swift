import Kafka
import Synchronization

/// The input partitions a stage consumer was assigned since the worker's loop last
/// looked (and whether any were revoked), recorded in the rebalance callbacks themselves
/// (inside the poll that served them, so before any record polled after the assignment is
/// decided). The loop catches up on exactly these before deciding: a partition assigned again after a brief
/// revocation (another member may have written for its users meanwhile)
/// shows here even though the assignment the loop reads looks unchanged,
/// and a rebalance that gives this member nothing new costs it nothing.
final class AssignmentChanges: Sendable {
    private let input: String
    private let assigned = Mutex<Set<Int32>>([])
    private let pending = Atomic<Bool>(false)

    init(input: String) {
        self.input = input
    }

    func recordAssigned(_ partitions: [KafkaTopicPartition]) {
        let numbers = partitions.filter { $0.topic == input }.map(\.partition)
        guard !numbers.isEmpty else { return }
        assigned.withLock { $0.formUnion(numbers) }
        pending.store(true, ordering: .releasing)
    }

    /// Partitions are being revoked (or were lost). Nothing is added: the loop reads which from
    /// the consumer's assignment once the poll serving the revocation returns. Without this, a
    /// member whose input was quiet kept deciding its ticks for partitions it had given up until
    /// its next record or gain, and was fenced there by the new owner's claim, and stopped.
    func recordRevoked() {
        pending.store(true, ordering: .releasing)
    }

    /// Whether partitions were assigned or revoked since the last ``take()`` (an atomic load:
    /// checked every loop turn).
    var hasNew: Bool { pending.load(ordering: .acquiring) }

    /// The partitions assigned since the last call, leaving none.
    func take() -> Set<Int32> {
        pending.store(false, ordering: .releasing)
        return assigned.withLock { assigned in
            defer { assigned = [] }
            return assigned
        }
    }
}
