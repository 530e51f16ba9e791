import Foundation
import IntentEvents
import Intents
import Payments
import StageRuntime

/// The payments stage as the simulation runs it, the only place money moves:
/// proposals, the users' answers and other members' effects in; ledger events (state),
/// effects, confirmations' outcomes and responses out. Each owned partition's ledger
/// is restored from the ledger topic on assignment (from the last snapshot on), and
/// snapshotted now and then; a tick each second releases expired holds.
struct PaymentsDecider: StageDecider {
    static let group = "intent-payments"
    static let input = SimulatedWorld.Topic.confirmations

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            tickInterval: .seconds(1), snapshotInterval: .seconds(2), restoresOnAssignment: true)
    }

    private let stage: PaymentsStage
    private var ledgers = PartitionedLedgers()
    private var seen: [Int32: ReplayGuard?] = [:]

    init(_ world: SimulatedWorld) {
        stage = PaymentsStage(
            bindingKey: SimulatedWorld.bindingKey, authenticator: world.voiceKeys, stages: world.stageKeys)
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        ledgers.restore(owned: owned, gained: gained, world, fromSnapshots: true)
        for partition in seen.keys where !owned.contains(partition) { seen[partition] = nil }
        for partition in gained { seen[partition] = ReplayGuard() }
    }

    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) { ledgers.follow(owned: owned, world) }

    mutating func remember(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) {
        stage.remember(
            key: record.key, value: record.value, signature: record.signature, horizon: nil, now: world.date,
            seen: &seen[partition, default: ReplayGuard()])
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        stage.process(
            key: record.key, value: record.value, signature: record.signature, ledger: &ledgers[partition],
            directory: world.accounts, now: world.date, seen: &seen[partition, default: ReplayGuard()])
    }

    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult {
        let cluster = world.cluster
        var result = StageResult()
        for partition in ledgers.partitions {
            result.events +=
                stage.sweep(ledger: &ledgers[partition], now: world.date) {
                    owned.contains(cluster.partition(forKey: $0))
                }.events
        }
        return result
    }

    mutating func snapshot(owned: Set<Int32>, _ world: inout SimulatedWorld) {
        for (partition, snapshot) in ledgers.snapshots(owned: owned, world) {
            world.ledgerSnapshots[partition] = snapshot
            world.report.snapshots += 1
        }
    }
}
