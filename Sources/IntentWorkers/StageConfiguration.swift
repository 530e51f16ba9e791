public import IntentEvents
public import Kafka
public import PipelineTopics
public import Telemetry

/// How a worker whose behaviour is a configured stage value connects: the
/// cluster, the topics, its consumer group, and the stage itself.
public struct StageConfiguration<Stage: Sendable>: Sendable {
    public var kafka: KafkaConfiguration
    public var topics: PipelineTopics
    /// Every instance of the worker uses the same group.
    public var groupID: String
    public var stage: Stage
    /// The stages' keys (see ``StageWorker/Configuration/keys``).
    public var keys: EventAuthenticator
    public var sessionTimeout: Duration
    /// See ``StageWorker/Configuration/deadLetterMaximumBytes``.
    public var deadLetterMaximumBytes: Int?
    /// How long decided things are remembered (``Ledger/idempotencyHorizon``).
    public var idempotencyHorizon: Duration = .seconds(24 * 3600)
    /// How often partitioned state is snapshotted (``StateSnapshots``).
    public var snapshotInterval: Duration = .seconds(30)
    /// See ``StageWorker/Configuration/batching``.
    public var batching: BatchPolicy = .standard
    /// See ``StageWorker/Configuration/retry``.
    public var retry: RetryPolicy = .standard
    /// See ``StageWorker/Configuration/telemetry``.
    public var telemetry: Telemetry = .unobserved
    /// The payments worker: the voice services that may decline each user's payment requests,
    /// from the settings topic. Nil: any voice service may (no settings are read); the
    /// `intent-payments` command always sets it.
    public var voiceServices: VoiceServiceSettings?

    public init(
        kafka: KafkaConfiguration, topics: PipelineTopics = PipelineTopics(), groupID: String, stage: Stage,
        keys: EventAuthenticator, sessionTimeout: Duration = .seconds(10)
    ) {
        self.kafka = kafka
        self.topics = topics
        self.groupID = groupID
        self.stage = stage
        self.keys = keys
        self.sessionTimeout = sessionTimeout
    }
}

extension StageConfiguration {
    /// The stage worker's settings for a worker that consumes `input` and writes as `source`.
    func worker(input: String, source: String) -> StageWorker.Configuration {
        var configuration = StageWorker.Configuration(
            kafka: kafka, topics: topics, groupID: groupID, input: input, keys: keys, sessionTimeout: sessionTimeout)
        configuration.deadLetterMaximumBytes = deadLetterMaximumBytes
        configuration.chainSource = source
        configuration.batching = batching
        configuration.retry = retry
        configuration.telemetry = telemetry
        return configuration
    }
}
