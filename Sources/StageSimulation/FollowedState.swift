import Foundation
import IntentEvents
import Intents
import StageRuntime

/// One value of partitioned state per owned input partition, restored from and following
/// that partition of a decoded state topic: what a worker's `PartitionedState` holds beside
/// its `TopicFollower`. Also the replay guards, which are restored (empty) and never follow.
struct FollowedState<Value> {
    private var values: [Int32: Value] = [:]
    /// How far each partition's records were applied.
    private var positions: [Int32: Int] = [:]
    private let empty: Value

    init(_ empty: Value) { self.empty = empty }

    /// Holds exactly `owned`: each `gained` partition starts over, from what `start` gives
    /// (a snapshot and how many records it holds) or empty from the first record.
    mutating func restore(
        owned: Set<Int32>, gained: Set<Int32>, from start: (Int32) -> (Value, records: Int)? = { _ in nil }
    ) {
        for partition in values.keys where !owned.contains(partition) {
            values[partition] = nil
            positions[partition] = nil
        }
        for partition in gained {
            let (value, position) = start(partition) ?? (empty, 0)
            values[partition] = value
            positions[partition] = position
        }
    }

    /// Applies the records of `log` appended to the owned partitions since last read.
    mutating func follow<Event>(_ log: [Int32: [Event?]], owned: Set<Int32>, _ apply: (inout Value, Event) -> Void) {
        for partition in owned.sorted() { follow(log[partition] ?? [], partition: partition, apply) }
    }

    /// Applies the records of `events` (one partition's log) appended since last read:
    /// one partition at a time, without a set made for it (a follow runs before every decision).
    mutating func follow<Event>(_ events: [Event?], partition: Int32, _ apply: (inout Value, Event) -> Void) {
        let from = positions[partition] ?? 0
        guard from < events.count else { return }
        let empty = self.empty
        for event in events[from...] {
            if let event { apply(&values[partition, default: empty], event) }
        }
        positions[partition] = events.count
    }

    /// Runs `body` on `partition`'s value in place (a copy would copy the whole table on write).
    mutating func with<Result>(_ partition: Int32, _ body: (inout Value) -> Result) -> Result {
        let empty = self.empty
        return body(&values[partition, default: empty])
    }

    /// Runs `body` on each partition's value in place, in partition order (the periodic
    /// work), and merges what it decided.
    mutating func withEach(_ body: (inout Value) -> StageResult) -> StageResult {
        .merged(partitions.map { with($0, body) })
    }

    func value(in partition: Int32) -> Value? { values[partition] }

    /// The partitions held, in order (the periodic ticks).
    var partitions: [Int32] { values.keys.sorted() }
}

extension FollowedState where Value == ReplayGuard? {
    /// Each owned partition's replay guard, empty until its replay memory is read back.
    init() { self.init(ReplayGuard()) }

    /// A record read back from a gained input partition, remembered as the stage
    /// remembered it when it acted (the workers' `ReplayMemory`).
    /// Checked once per record for every member that reads it back (``VerifiedInputs``), but
    /// for its freshness, at the world's time.
    mutating func remember<Payload>(
        _ input: StageInput<Payload>, _ record: InMemoryCluster.Record, of topic: String, at position: InputPosition,
        _ world: inout SimulatedWorld
    ) {
        let envelope = world.verifiedInputs.checked(
            topic: topic, partition: position.partition, offset: position.offset
        ) { input.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature) }
        let now = world.date
        with(position.partition) {
            input.remember(envelope, value: record.value, signature: record.signature, now: now, seen: &$0)
        }
    }
}
