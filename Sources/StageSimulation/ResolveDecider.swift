import Foundation
import IntentEvents
import IntentResolution
import Intents
import StageRuntime

/// The resolve stage as the simulation runs it: voice services' requests in, resolved
/// intents out. Contacts and settings are fixed tables (every user knows every other,
/// speaks through the simulated voice service); the turn tracker is the member's, as the
/// worker's is, and learns a gained partition's turns from its replay memory.
struct ResolveDecider: StageDecider {
    static let group = "intent-resolve"
    static let input = SimulatedWorld.topics.requested

    static func policy(maximumBatch: Int) -> StageRuntimePolicy {
        StageRuntimePolicy(
            maximumBatch: maximumBatch, commitInterval: .milliseconds(200), maximumBatchesInFlight: 4,
            restoresOnAssignment: true)
    }

    private var stage: ResolveStage

    init(_ world: SimulatedWorld) {
        stage = ResolveStage(
            resolver: IntentResolver(messagingServices: ["sms", SimulatedWorld.slowService]),
            authenticator: world.voiceKeys)
    }

    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {}

    mutating func remember(
        _ record: InMemoryCluster.Record, partition: Int32, offset: Int64, _ world: inout SimulatedWorld
    ) {
        let request = world.verifiedRequests.checked(topic: Self.input, partition: partition, offset: offset) {
            self.stage.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature)
        }
        let settings = world.settings
        stage.remember(request, now: world.date, settings: { settings.settings(of: $0) })
    }

    mutating func decide(_ record: InMemoryCluster.Record, partition: Int32, _ world: SimulatedWorld) -> StageResult {
        let settings = world.settings
        let books = world.contactBooks
        return stage.process(
            key: record.key, value: record.value, signature: record.signature, now: world.date,
            settings: { settings.settings(of: $0) }, contacts: { books[$0] ?? ContactBook(contacts: []) }
        )
        .stageResult
    }
}
