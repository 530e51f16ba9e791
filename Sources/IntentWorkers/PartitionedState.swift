import CMalloc
import Synchronization

/// A worker's state, one value per input partition it owns: records of a
/// partition are decided on, and its state topic's records applied to, that
/// partition's value only, and a partition the worker loses is forgotten
/// whole (``TopicFollower``'s `forget`). So memory follows the partitions
/// owned, and no decision can read another member's users.
final class PartitionedState<Value: Sendable>: Sendable {
    private let values = Mutex<[Int32: Value]>([:])
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// Runs `body` on the state of `partition` (empty if nothing was applied to it yet).
    func withValue<Result: Sendable>(in partition: Int32, _ body: (inout Value) -> Result) -> Result {
        values.withLock { values in
            if values[partition] == nil { values[partition] = make() }
            return body(&values[partition]!)
        }
    }

    /// Runs `body` on the state of each partition held, in partition order (the periodic ticks).
    func withEachValue<Result: Sendable>(_ body: (inout Value) -> Result) -> [Result] {
        values.withLock { values in
            values.keys.sorted().map { body(&values[$0]!) }
        }
    }

    /// A copy of partition p's state (copy on write: cheap now, paid by the next write), or nil.
    func value(in partition: Int32) -> Value? {
        values.withLock { $0[partition] }
    }

    /// Replaces partition p's state (a restored snapshot).
    func install(_ value: Value, in partition: Int32) {
        values.withLock { $0[partition] = value }
    }

    func forget(_ partition: Int32) {
        _ = values.withLock { $0.removeValue(forKey: partition) }
        Self.returnFreedMemory()
    }

    /// Hands the heap's free pages back to the system: a partition's state is freed
    /// in many small blocks, which the allocator would otherwise keep, so an
    /// instance that lost half its partitions would still look as big as before.
    static func returnFreedMemory() {
        _ = malloc_trim(0)
    }

    /// The partitions with state, for tests and logs.
    var partitions: [Int32] { values.withLock { $0.keys.sorted() } }
}
