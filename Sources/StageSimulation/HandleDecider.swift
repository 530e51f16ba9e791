import Foundation
import IntentEvents
import Intents
import Messaging
import StageRuntime

/// The handle stage as the simulation runs it: confirmed messaging intents in; message
/// events (state) and responses out. Each owned partition's message history is restored
/// from the messages topic and follows it; a tick each second delivers what the slow
/// service queued and answers those intents.
struct HandleDecider: StageDecider {
    static let group = "intent-handle"
    static let input = SimulatedWorld.topics.confirmed

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            tickInterval: .seconds(1), restoresOnAssignment: true)
    }

    private let stage: HandleStage
    private var histories = FollowedState(MessageHistory())
    private var seen = FollowedState<ReplayGuard?>()

    init(_ world: SimulatedWorld) {
        var stage = HandleStage(
            authenticator: world.stageKeys, slowServices: [SimulatedWorld.slowService: .seconds(1)])
        stage.freshness = .stageEvents
        self.stage = stage
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        histories.restore(owned: owned, gained: gained) { partition in
            let restored = world.restoredHistories.restored(partition)
            return (restored.value, restored.records)
        }
        seen.restore(owned: owned, gained: gained)
        follow(owned: owned, world)
    }

    /// Own records read back change nothing: the history applies each event once.
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {
        histories.follow(world.messageEvents, owned: owned) { history, event in history.apply(event) }
    }

    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    ) {
        seen.remember(
            stage.input, record, of: Self.input, at: InputPosition(partition: partition, offset: offset), &world)
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        let stage = self.stage
        return seen.with(partition) { seen in
            histories.with(partition) { history in
                stage.process(
                    key: record.key, value: record.value, signature: record.signature, history: &history,
                    now: world.date, seen: &seen)
            }
        }
    }

    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult {
        let cluster = world.cluster
        let stage = self.stage
        return histories.withEach { history in
            stage.tick(history: &history, now: world.date) { owned.contains(cluster.partition(forKey: $0)) }
        }
    }
}
