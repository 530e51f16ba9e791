import Foundation
import IntentEvents
import Intents
import Payments
import StageRuntime

/// The payments stage as the simulation runs it, the only place money moves:
/// proposals, the users' answers and other members' effects in; ledger events (state),
/// effects, confirmations' outcomes and responses out. Each owned partition's ledger
/// is restored from the ledger topic on assignment (from the last snapshot on), and
/// snapshotted now and then; a tick each second releases expired holds. Fenced as the
/// worker is: each partition gained is claimed before deciding there, and a round's
/// notices go only once its ledger records are read back under this member's claim.
struct PaymentsDecider: StageDecider {
    static let group = "intent-payments"
    static let input = SimulatedWorld.topics.confirmations

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            tickInterval: .seconds(1), snapshotInterval: .seconds(2), fencing: true,
            restoresOnAssignment: true)
    }

    private let stage: PaymentsStage
    private var ledgers = PartitionedLedgers()
    private var seen = FollowedState<ReplayGuard?>()
    /// How many of each partition's ledger records its last snapshot by this member held, so
    /// a partition that has not moved since is not snapshotted again: what the worker's
    /// `SnapshotWriter.hasMoved` does (a restarted member starts with none, as a restarted
    /// worker's writer does).
    private var captured: [Int32: Int] = [:]

    init(_ world: SimulatedWorld) {
        stage = PaymentsStage(
            bindingKey: SimulatedWorld.bindingKey, authenticator: world.voiceKeys, stages: world.stageKeys)
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        ledgers.restore(owned: owned, gained: gained, world)
        seen.restore(owned: owned, gained: gained)
    }

    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) { ledgers.follow(owned: owned, world) }

    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    ) {
        let stage = self.stage
        let envelope = world.verifiedProposals.checked(topic: Self.input, partition: partition, offset: offset) {
            stage.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature)
        }
        seen.with(partition) { seen in
            stage.remember(
                envelope, value: record.value, signature: record.signature, horizon: nil, now: world.date, seen: &seen)
        }
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        let stage = self.stage
        return seen.with(partition) { seen in
            ledgers.with(partition) { ledger in
                stage.process(
                    key: record.key, value: record.value, signature: record.signature, ledger: &ledger,
                    directory: world.accounts, now: world.date, seen: &seen)
            }
        }
    }

    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult {
        let cluster = world.cluster
        let stage = self.stage
        return ledgers.withEach { ledger in
            stage.sweep(ledger: &ledger, now: world.date) { owned.contains(cluster.partition(forKey: $0)) }
        }
    }

    mutating func claim(_ partitions: Set<Int32>, member: String, _ world: inout SimulatedWorld) -> Set<Int32> {
        ledgers.claim(partitions, member: member, &world)
    }

    mutating func readBack(_ written: Set<Int32>?, _ world: SimulatedWorld) -> Set<Int32> {
        ledgers.readBack(written, world)
    }

    mutating func snapshot(owned: Set<Int32>, _ world: inout SimulatedWorld) {
        // As the worker: a partition with no records yet has nothing to snapshot.
        let moved = owned.filter { partition in
            let records = world.ledgerEvents[partition]?.count ?? 0
            return records > 0 && captured[partition] != records
        }
        for (partition, snapshot) in ledgers.snapshots(owned: moved, world) {
            captured[partition] = snapshot.records
            world.keep(snapshot, of: partition)
            world.report.snapshots += 1
        }
    }
}
