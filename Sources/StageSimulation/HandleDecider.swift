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
    static let input = SimulatedWorld.Topic.confirmed

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            tickInterval: .seconds(1), restoresOnAssignment: true)
    }

    private let stage: HandleStage
    private var histories: [Int32: MessageHistory] = [:]
    private var followed = FollowedPositions()
    private var seen: [Int32: ReplayGuard?] = [:]

    init(_ world: SimulatedWorld) {
        var stage = HandleStage(
            authenticator: world.stageKeys, slowServices: [SimulatedWorld.slowService: .seconds(1)])
        stage.freshness = .stageEvents
        self.stage = stage
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        for partition in histories.keys where !owned.contains(partition) {
            histories[partition] = nil
            seen[partition] = nil
            followed.drop(partition)
        }
        for partition in gained {
            histories[partition] = MessageHistory()
            seen[partition] = ReplayGuard()
            followed.reset(partition)
        }
        follow(owned: owned, world)
    }

    /// Own records read back change nothing: the history applies each event once.
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {
        var followed = self.followed
        followed.follow(world.messageEvents, owned: owned) { partition, event in
            histories[partition, default: MessageHistory()].apply(event)
        }
        self.followed = followed
    }

    mutating func remember(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) {
        stage.input.remember(
            key: record.key, value: record.value, signature: record.signature, now: world.date,
            seen: &seen[partition, default: ReplayGuard()])
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        stage.process(
            key: record.key, value: record.value, signature: record.signature,
            history: &histories[partition, default: MessageHistory()], now: world.date,
            seen: &seen[partition, default: ReplayGuard()])
    }

    mutating func tick(owned: Set<Int32>, _ world: SimulatedWorld) -> StageResult {
        let cluster = world.cluster
        var result = StageResult()
        for partition in histories.keys.sorted() {
            result.events +=
                stage.tick(history: &histories[partition]!, now: world.date) {
                    owned.contains(cluster.partition(forKey: $0))
                }.events
        }
        return result
    }
}
