import CoreMetrics
import Foundation
public import IntentEvents
public import IntentResolution
import Intents
public import Kafka
public import Logging
public import PipelineTopics
public import ServiceLifecycle
import Synchronization
public import Telemetry

/// The resolve stage as a worker: intent requests in; prompts or resolved
/// intents out. The contacts and settings topics are its state, co-partitioned
/// with the input: a user's contacts and settings are on their user's partition
/// (see ``KafkaProducerMessage/contact(_:of:topic:partitions:source:signedWith:time:)``),
/// and each instance holds those of the partitions it owns.
public struct ResolveWorker: Service {
    public struct Configuration: Sendable {
        public var kafka: KafkaConfiguration
        public var topics: PipelineTopics
        public var groupID: String
        public var resolver: IntentResolver
        /// Voice services' keys; nil accepts unsigned requests (development only).
        public var authenticator: EventAuthenticator?
        /// The stages' keys: the resolve stage signs what it publishes with its own.
        public var keys: EventAuthenticator
        /// How old or far ahead a request may be dated.
        public var freshness: FreshnessWindow
        public var sessionTimeout: Duration
        /// See ``StageWorker/Configuration/deadLetterMaximumBytes``.
        public var deadLetterMaximumBytes: Int?
        /// Whether a payment needs its user bound to the voice service that asks.
        public var voiceBinding: VoiceServiceBinding
        /// See ``StageWorker/Configuration/batching``.
        public var batching: BatchPolicy = .standard
        /// See ``StageWorker/Configuration/retry``.
        public var retry: RetryPolicy = .standard
        /// See ``StageWorker/Configuration/telemetry``.
        public var telemetry: Telemetry = .unobserved

        public init(
            kafka: KafkaConfiguration, topics: PipelineTopics = PipelineTopics(), groupID: String = "intent-resolve",
            resolver: IntentResolver = IntentResolver(), authenticator: EventAuthenticator? = nil,
            keys: EventAuthenticator, freshness: FreshnessWindow = .default, sessionTimeout: Duration = .seconds(10),
            voiceBinding: VoiceServiceBinding = .required
        ) {
            self.voiceBinding = voiceBinding
            self.authenticator = authenticator
            self.keys = keys
            self.freshness = freshness
            self.kafka = kafka
            self.topics = topics
            self.groupID = groupID
            self.resolver = resolver
            self.sessionTimeout = sessionTimeout
        }
    }

    private let worker: StageWorker

    /// - Parameter hooks: Fault injection by a test host (``StageHostHooks``); production passes none.
    public init(configuration: Configuration, logger: Logger, hooks: any StageHostHooks = NoStageHostHooks()) {
        let directory = PartitionedState { ContactDirectory() }
        let settings = PartitionedState { UserSettingsDirectory() }
        let stage = Mutex(
            ResolveStage(
                resolver: configuration.resolver, authenticator: configuration.authenticator,
                freshness: configuration.freshness, voiceBinding: configuration.voiceBinding))
        var workerConfiguration = StageWorker.Configuration(
            kafka: configuration.kafka, topics: configuration.topics, groupID: configuration.groupID,
            input: configuration.topics.requested, keys: configuration.keys,
            sessionTimeout: configuration.sessionTimeout)
        workerConfiguration.deadLetterMaximumBytes = configuration.deadLetterMaximumBytes
        workerConfiguration.chainSource = PipelineSource.resolve
        workerConfiguration.batching = configuration.batching
        workerConfiguration.retry = configuration.retry
        workerConfiguration.telemetry = configuration.telemetry
        worker = StageWorker(
            name: "resolve worker",
            configuration: workerConfiguration,
            logger: logger,
            followers: { reject in
                // The worker's telemetry counts the records the followers ignore.
                let metrics = configuration.telemetry.metrics
                return [
                    try TopicFollower(
                        configuration: configuration.kafka, topic: configuration.topics.contacts, logger: logger,
                        apply: { message throws(EventDecodingError) in
                            // Contacts decide whose account a payment credits: only a contacts
                            // service's signed records count (unless unsigned input is allowed).
                            let record = try ContactRecord.decode(message, authenticator: configuration.authenticator)
                            directory.withValue(in: message.partition) { $0.apply(record) }.report(
                                message, metrics: metrics, logger: logger)
                        }, reject: reject, forget: directory.forget, retry: configuration.retry,
                        // A user's contacts are all on the user's partition, whatever the contact.
                        placementKey: { ContactRecord.placementKey($0.key) }),
                    try TopicFollower.settings(
                        configuration: configuration.kafka, topic: configuration.topics.settings,
                        authenticator: configuration.authenticator, into: settings, metrics: metrics, logger: logger,
                        retry: configuration.retry, reject: reject),
                ]
            },
            // The turns admitted, read back from each partition this member gains: one tracker
            // for all partitions, so a gain adds to it (nothing is forgotten on a reset).
            replayMemory: ReplayMemory(
                depth: TurnTracker().capacity, reset: { _ in },
                remember: { message in
                    stage.withLock { stage in
                        stage.remember(
                            key: message.keyString, value: message.value, signature: message.signature,
                            settings: { user in settings.withValue(in: message.partition) { $0.settings(of: user) } })
                    }
                }),
            hooks: hooks,
            process: { message in
                stage.withLock { stage in
                    stage.process(
                        key: message.keyString, value: message.value, signature: message.signature,
                        settings: { user in
                            settings.withValue(in: message.partition) { $0.settings(of: user) }
                        }
                    ) { user in
                        directory.withValue(in: message.partition) { $0.book(for: user) }
                    }
                    .stageResult
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
