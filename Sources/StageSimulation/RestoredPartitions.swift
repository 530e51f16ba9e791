/// Each partition of a state topic as a member gaining it reads it back: the last
/// snapshot's value (or the empty one) with every record appended since applied in
/// topic order, kept up to date as records are appended.
///
/// Why: every rebalance gives members partitions, and each gained partition's state is
/// read back from the topic (the snapshot and its tail), as the workers do on assignment.
/// Replaying is a deterministic function of the snapshot and the records, so the world
/// replays each record once, here, and a restore starts from a copy of the result (one
/// copy of the value instead of a replay of the tail on every one of a run's hundreds of
/// rebalances). What a restore reads is the same value a replay would give.
struct RestoredPartitions<Value, Event> {
    /// One partition read back: its value, how many of the topic's records it covers,
    /// and whether applying one of them refused it (``refuses``).
    struct Restored {
        var value: Value
        var records: Int
        var refused = false
    }

    private var partitions: [Int32: Restored] = [:]
    private let empty: Value
    /// Applies one record in replay mode; true when the record was refused in a way a
    /// restoring member must act on (a ledger event id reused for something else).
    private let apply: (inout Value, Event) -> Bool

    init(_ empty: Value, apply: @escaping (inout Value, Event) -> Bool) {
        self.empty = empty
        self.apply = apply
    }

    /// The record appended at the end of `partition` (nil: it did not decode; counted, not applied).
    mutating func append(_ event: Event?, to partition: Int32) {
        let empty = self.empty
        let apply = self.apply
        partitions[partition, default: Restored(value: empty, records: 0)].records += 1
        guard let event else { return }
        if apply(&partitions[partition, default: Restored(value: empty, records: 0)].value, event) {
            partitions[partition, default: Restored(value: empty, records: 0)].refused = true
        }
    }

    /// A new snapshot of `partition` to restore from: `value` holding its first `records`
    /// records; `log` the partition's records, of which those after the snapshot are applied.
    mutating func restart(_ partition: Int32, from value: Value?, records: Int, _ log: [Event?]) {
        var restored = value.map { Restored(value: $0, records: records) } ?? Restored(value: empty, records: 0)
        for event in log[restored.records...] {
            restored.records += 1
            if let event, apply(&restored.value, event) { restored.refused = true }
        }
        partitions[partition] = restored
    }

    /// What a member gaining `partition` restores.
    func restored(_ partition: Int32) -> Restored {
        partitions[partition] ?? Restored(value: empty, records: 0)
    }
}
