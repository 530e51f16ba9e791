import Confirmation
import Foundation
import IntentEvents
import Intents
import Payments
import StageRuntime

/// The confirm stage as the simulation runs it: resolved intents in; messages to the
/// handle stage, proposals (state) and then confirmation requests for payments, or a
/// final response. It reads the ledger partitions of the input partitions it owns, as
/// the worker's ledger follower does, and the accounts directory whole.
struct ConfirmDecider: StageDecider {
    static let group = "intent-confirm"
    static let input = SimulatedWorld.topics.resolved

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            restoresOnAssignment: true)
    }

    private let stage: ConfirmStage
    private var ledgers = PartitionedLedgers()
    private var seen = FollowedState<ReplayGuard?>()

    init(_ world: SimulatedWorld) {
        var stage = ConfirmStage(
            bindingKey: SimulatedWorld.bindingKey, authenticator: world.stageKeys,
            confirmationWindow: SimulatedWorld.confirmationWindow)
        stage.freshness = .stageEvents
        self.stage = stage
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        ledgers.restore(owned: owned, gained: gained, world)
        seen.restore(owned: owned, gained: gained)
    }

    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) { ledgers.follow(owned: owned, world) }

    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    ) {
        seen.remember(
            stage.input, record, of: Self.input, at: InputPosition(partition: partition, offset: offset), &world)
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        let ledger = ledgers.with(partition) { $0 }
        return seen.with(partition) { seen in
            stage.process(
                key: record.key, value: record.value, signature: record.signature, ledger: ledger,
                directory: world.accounts, now: world.date, seen: &seen)
        }
    }
}
