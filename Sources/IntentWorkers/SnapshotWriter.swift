import Foundation
import Kafka
import Logging
import Synchronization

/// Writes the snapshots a worker's loop captured, beside the loop: encoding
/// and publishing a partition's state takes longer than deciding a batch,
/// and the loop should not wait for it. One snapshot at a time, in order;
/// the previous snapshot's chunks of each partition are tombstoned after the
/// next one's manifest is on the broker.
final class SnapshotWriter: Sendable {
    struct Captured: Sendable {
        var partition: Int32
        var position: Int64
        var encode: @Sendable () -> [UInt8]
    }

    let snapshots: StateSnapshots
    private let producer: KafkaProducer
    private let logger: Logger
    private let stream: AsyncStream<Captured>
    private let continuation: AsyncStream<Captured>.Continuation
    private let drained: AsyncStream<Void>
    private let drainedContinuation: AsyncStream<Void>.Continuation
    /// Part of every chunk key this writer writes (``SnapshotStore``).
    private let instance = String(UUID().uuidString.prefix(8))
    /// The position each partition was last captured at, so an idle partition is not written again.
    private let captured = Mutex<[Int32: Int64]>([:])

    init(snapshots: StateSnapshots, producer: KafkaProducer, logger: Logger) {
        self.snapshots = snapshots
        self.producer = producer
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(of: Captured.self)
        (drained, drainedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Whether partition p moved since its last capture (a new position, or never captured).
    func hasMoved(_ partition: Int32, to position: Int64) -> Bool {
        captured.withLock { $0[partition] != position }
    }

    func submit(_ snapshot: Captured) {
        captured.withLock { $0[snapshot.partition] = snapshot.position }
        continuation.yield(snapshot)
    }

    /// Writes what is submitted until ``finish()``; a failed write is logged (the next
    /// capture tries again, and the state topic stays the truth).
    func run() async {
        var previous: [Int32: [[UInt8]]] = [:]
        for await snapshot in stream {
            let started = ContinuousClock.now
            do {
                let bytes = snapshot.encode()
                // The snapshot this one replaces: one restored since this writer's last (another
                // member's, or this worker's before a restart), else this writer's own.
                let replaced = snapshots.restoredChunks.take(snapshot.partition) ?? previous[snapshot.partition] ?? []
                previous[snapshot.partition] = try await snapshots.store.write(
                    partition: snapshot.partition, position: snapshot.position, bytes: bytes, previous: replaced,
                    writerInstance: instance, producer: producer)
                logger.info(
                    "snapshot written",
                    metadata: [
                        "topic": "\(snapshots.store.topic)", "partition": "\(snapshot.partition)",
                        "position": "\(snapshot.position)", "bytes": "\(bytes.count)",
                        "elapsed": "\(ContinuousClock.now - started)",
                    ])
            } catch {
                captured.withLock { $0[snapshot.partition] = nil }
                logger.warning(
                    "snapshot not written",
                    metadata: ["partition": "\(snapshot.partition)", "error": "\(error)"])
            }
        }
        drainedContinuation.finish()
    }

    /// Ends ``run()`` once what was submitted is written, and waits for that.
    func finish() async {
        continuation.finish()
        for await _ in drained {}
    }
}
