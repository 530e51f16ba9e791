import BrokerTestSupport
import Foundation
public import Intents
public import Kafka
public import LocalBroker
public import PipelineTopics
public import StageRuntime

/// How the process-level load tests (crash, SIGTERM, scaling) start: topics
/// with seeded accounts and contacts, the four workers as processes, the voice
/// side's responder, and the seeded load being published at its pace. The
/// seed's draws are taken in the same order by every test: the workers' seed,
/// then the load.
public struct LoadRun: Sendable {
    public let topics: PipelineTopics
    public let producer: KafkaProducer
    public let workers: WorkerProcesses
    public let responder: Responder
    /// Intent id → kind, for the checks.
    public let intents: [String: Intent.Kind]
    /// How many intents have been published so far.
    public let published: Counter
    public let load: Task<Void, any Error>

    public static func start(
        _ broker: LocalBroker, name: String, random: inout SplitMix64, extraEnvironment: [String: String] = [:],
        firstStartEnvironment: [String: [String: String]] = [:]
    ) async throws -> LoadRun {
        let (topics, producer) = try await LoadFixture.prepare(broker, name: name)
        let workers = try WorkerProcesses(
            broker: broker, topics: topics, extraEnvironment: extraEnvironment,
            firstStartEnvironment: firstStartEnvironment, seed: random.next())
        let responder = try Responder(broker: broker, topics: topics, producer: producer)
        let (intents, records) = LoadFixture.makeIntents(topics, using: &random)
        let published = Counter()
        let load = Task { try await LoadFixture.pace(records, through: producer, counting: published) }
        return LoadRun(
            topics: topics, producer: producer, workers: workers, responder: responder, intents: intents,
            published: published, load: load)
    }
}
