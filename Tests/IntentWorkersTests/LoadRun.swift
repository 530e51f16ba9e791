import BrokerTestSupport
import Foundation
import Intents
import Kafka
import LocalBroker
import PipelineTopics
import StageRuntime

/// How the process-level load tests (crash, SIGTERM, scaling) start: topics
/// with seeded accounts and contacts, the four workers as processes, the voice
/// side's responder, and the seeded load being published at its pace. The
/// seed's draws are taken in the same order by every test: the workers' seed,
/// then the load.
struct LoadRun {
    let topics: PipelineTopics
    let producer: KafkaProducer
    let workers: WorkerProcesses
    let responder: Responder
    /// Intent id → kind, for the checks.
    let intents: [String: Intent.Kind]
    /// How many intents have been published so far.
    let published: Counter
    let load: Task<Void, any Error>

    static func start(
        _ broker: LocalBroker, name: String, random: inout SplitMix64, extraEnvironment: [String: String] = [:],
        firstStartEnvironment: [String: [String: String]] = [:]
    ) async throws -> LoadRun {
        let (topics, producer) = try await CrashRecoveryTests.prepare(broker, name: name)
        let workers = try WorkerProcesses(
            broker: broker, topics: topics, extraEnvironment: extraEnvironment,
            firstStartEnvironment: firstStartEnvironment, seed: random.next())
        let responder = try Responder(broker: broker, topics: topics, producer: producer)
        let (intents, records) = CrashRecoveryTests.makeIntents(topics, using: &random)
        let published = Counter()
        let load = Task { try await CrashRecoveryTests.pace(records, through: producer, counting: published) }
        return LoadRun(
            topics: topics, producer: producer, workers: workers, responder: responder, intents: intents,
            published: published, load: load)
    }
}
