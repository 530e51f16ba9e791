import Synchronization

/// Counts the partition assignments a stage consumer has received, so the
/// worker's loop notices one even when the assignment it reads afterwards
/// looks unchanged (a partition revoked and given back in between, after
/// another member wrote for its users): any new epoch is caught up on.
final class AssignmentEpoch: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func advance() { count.add(1, ordering: .releasing) }
}
