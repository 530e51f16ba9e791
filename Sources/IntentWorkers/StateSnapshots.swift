import Kafka
import Logging
import Synchronization

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
    let capture: @Sendable (Int32) -> (@Sendable () -> [UInt8])?
    /// Replaces partition p's state with the decoded bytes; throws (changing nothing) for bytes it cannot read.
    let install: @Sendable (Int32, [UInt8]) throws -> Void
    /// The chunk keys of the snapshots restored, by partition, until this worker's writer
    /// (if it writes) replaces them and tombstones them: a restart or a handover would
    /// otherwise leave the previous snapshot's chunks in the compacted topic for good.
    let restoredChunks = RestoredChunks()

    final class RestoredChunks: Sendable {
        private let keys = Mutex<[Int32: [[UInt8]]]>([:])

        func record(_ chunkKeys: [[UInt8]], for partition: Int32) { keys.withLock { $0[partition] = chunkKeys } }

        /// The keys restored for `partition` since the last call, if any.
        func take(_ partition: Int32) -> [[UInt8]]? { keys.withLock { $0.removeValue(forKey: partition) } }
    }

    public init(
        store: SnapshotStore, writes: Bool, interval: Duration,
        capture: @escaping @Sendable (Int32) -> (@Sendable () -> [UInt8])?,
        install: @escaping @Sendable (Int32, [UInt8]) throws -> Void
    ) {
        self.store = store
        self.writes = writes
        self.interval = interval
        self.capture = capture
        self.install = install
    }

    /// Restores `partitions` from their latest snapshots (read with one consumer,
    /// decoded side by side); returns for each restored one the state-topic offset
    /// to read on from. A partition without a usable snapshot is absent (read
    /// from the beginning), and said so in the log.
    func restore(_ partitions: [Int32], logger: Logger) async -> [Int32: Int64] {
        let started = ContinuousClock.now
        let found: [Int32: Result<SnapshotStore.Restored, SnapshotStore.Unusable>]
        do {
            found = try await store.latest(partitions: partitions, logger: logger)
        } catch {
            logger.warning(
                "snapshots not read; the partitions are rebuilt from their state topic",
                metadata: ["topic": "\(store.stateTopic)", "partitions": "\(partitions)", "error": "\(error)"])
            return [:]
        }
        let install = self.install
        let positions = await withTaskGroup(of: (Int32, Int64?).self) { group in
            for (partition, result) in found {
                group.addTask {
                    do {
                        let restored = try result.get()
                        try install(partition, restored.bytes)
                        self.restoredChunks.record(restored.chunkKeys, for: partition)
                        logger.info(
                            "state restored from a snapshot",
                            metadata: [
                                "topic": "\(self.store.stateTopic)", "partition": "\(partition)",
                                "position": "\(restored.position)", "bytes": "\(restored.bytes.count)",
                            ])
                        return (partition, restored.position)
                    } catch {
                        logger.warning(
                            "snapshot not used; the partition is rebuilt from its state topic",
                            metadata: [
                                "topic": "\(self.store.stateTopic)", "partition": "\(partition)", "error": "\(error)",
                            ])
                        return (partition, nil)
                    }
                }
            }
            var positions: [Int32: Int64] = [:]
            for await (partition, position) in group { positions[partition] = position }
            return positions
        }
        PartitionedState<Int>.returnFreedMemory()
        if !found.isEmpty {
            logger.info(
                "snapshots read",
                metadata: [
                    "topic": "\(store.stateTopic)", "restored": "\(positions.count) of \(partitions.count)",
                    "elapsed": "\(ContinuousClock.now - started)",
                ])
        }
        return positions
    }
}
