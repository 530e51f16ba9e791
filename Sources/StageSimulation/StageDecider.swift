import Foundation
import Intents
import StageRuntime

/// What differs between the simulated stages: the pure stage a worker calls and the
/// state it holds beside it. The loop around it (polling, the runtime's actions,
/// publishing, acknowledgements, commits, faults) is one ``SimulatedMember`` for all.
///
/// The methods mirror what the Kafka host does: `restore` is the state followers'
/// reset and re-read on an assignment change, `follow` their catching up before a
/// decision, `remember` the replay memory read back from a gained input partition,
/// `decide` the worker's `process`, `tick` its periodic work, `snapshot` the state
/// snapshots, `claim` and `readBack` its fencing (``PartitionOwnership``).
protocol StageDecider {
    /// The stage's consumer group.
    static var group: String { get }
    /// The topic the stage consumes.
    static var input: String { get }
    /// How the stage's runtime is configured (the batch size is drawn per member).
    static func policy(maximumBatch: Int) -> StageRuntimePolicy

    init(_ world: SimulatedWorld)

    /// Partitioned state is to hold exactly `owned`: `gained` partitions' state is read
    /// again from the state topics (or the last snapshot), the others' dropped.
    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld)
    /// Applies what was appended to the owned partitions' state topics since last read
    /// (another member that lost a partition may still finish a round there).
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld)
    /// An input record read back from a gained partition (at `offset`), before its committed offset.
    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    )
    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult
    /// The periodic work for the owned partitions.
    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult
    /// Captures the owned partitions' state (nothing in flight: it is exactly the state topics).
    mutating func snapshot(owned: Set<Int32>, _ world: inout SimulatedWorld)
    /// With fencing (the payments stage): claims each of `partitions` it holds no claim on,
    /// under `member`'s name; returns those where another member's claim won.
    mutating func claim(_ partitions: Set<Int32>, member: String, _ world: inout SimulatedWorld) -> Set<Int32>
    /// With fencing: a round's state read back (`written`: the partitions of the claimed
    /// state topic it wrote to; nil: every one held); returns those where what this member
    /// wrote counts for nothing (or may not count), so the round's notices must not go.
    mutating func readBack(_ written: Set<Int32>?, _ world: SimulatedWorld) -> Set<Int32>
}

extension StageDecider {
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {}
    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    ) {}
    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult { StageResult() }
    mutating func snapshot(owned: Set<Int32>, _ world: inout SimulatedWorld) {}
    mutating func claim(_ partitions: Set<Int32>, member: String, _ world: inout SimulatedWorld) -> Set<Int32> { [] }
    mutating func readBack(_ written: Set<Int32>?, _ world: SimulatedWorld) -> Set<Int32> { [] }
}
