import Kafka
import Logging

/// How a worker's partitioned state is snapshotted (``SnapshotStore``):
/// captured per partition on the worker's loop, encoded and written by a
/// ``SnapshotWriter`` beside it, and restored by the state's follower when
/// the worker gains the partition.
public struct StateSnapshots: Sendable {
    public let store: SnapshotStore
    /// Whether this worker writes the snapshots, or only restores from another's
    /// (the confirm worker reads the payments worker's ledger snapshots).
    public let writes: Bool
    /// How often a partition whose state moved is snapshotted (and once more at shutdown).
    public let interval: Duration
    /// Takes partition p's state as it is now (a copy, under the state's lock) and
    /// returns the encoding to run later, off the loop; nil when there is no state.
    let capture: @Sendable (Int32) -> (@Sendable () throws -> [UInt8])?
    /// Replaces partition p's state with the decoded bytes; throws (changing nothing) for bytes it cannot read.
    let install: @Sendable (Int32, [UInt8]) throws -> Void

    public init(
        store: SnapshotStore, writes: Bool, interval: Duration,
        capture: @escaping @Sendable (Int32) -> (@Sendable () throws -> [UInt8])?,
        install: @escaping @Sendable (Int32, [UInt8]) throws -> Void
    ) {
        self.store = store
        self.writes = writes
        self.interval = interval
        self.capture = capture
        self.install = install
    }

    /// Restores partition p from its latest snapshot; returns the state-topic offset to
    /// read on from (0, the whole partition, when there is no usable snapshot).
    func restore(_ partition: Int32, logger: Logger) async -> Int64 {
        let started = ContinuousClock.now
        do {
            guard let restored = try await store.latest(partition: partition, logger: logger) else { return 0 }
            try install(partition, restored.bytes)
            logger.info(
                "state restored from a snapshot",
                metadata: [
                    "topic": "\(store.stateTopic)", "partition": "\(partition)", "position": "\(restored.position)",
                    "bytes": "\(restored.bytes.count)", "elapsed": "\(ContinuousClock.now - started)",
                ])
            return restored.position
        } catch {
            logger.warning(
                "snapshot not used; the partition is rebuilt from its state topic",
                metadata: ["topic": "\(store.stateTopic)", "partition": "\(partition)", "error": "\(error)"])
            return 0
        }
    }
}
