public import IntentResolution
import Intents
public import Kafka
public import Logging
import Payments
public import ServiceLifecycle
import Synchronization

/// The confirm stage as a worker: resolved intents in; messaging intents to
/// the handle stage, financial ones to the payments stage, and what cannot
/// be done to the responses. Reads the ledger (accounts, balances, payment
/// requests) as a global table; the payments stage checks again when it reserves.
public struct ConfirmWorker: Service {
    public struct Configuration: Sendable {
        public var kafka: KafkaConfiguration
        public var topics: PipelineTopics
        public var groupID: String
        public var amounts: AmountPolicy
        public var unavailableServices: Set<String>
        public var sessionTimeout: Duration

        public init(
            kafka: KafkaConfiguration, topics: PipelineTopics = PipelineTopics(), groupID: String = "intent-confirm",
            amounts: AmountPolicy = .default, unavailableServices: Set<String> = [],
            sessionTimeout: Duration = .seconds(10)
        ) {
            self.kafka = kafka
            self.topics = topics
            self.groupID = groupID
            self.amounts = amounts
            self.unavailableServices = unavailableServices
            self.sessionTimeout = sessionTimeout
        }
    }

    private let worker: StageWorker

    public init(configuration: Configuration, logger: Logger) {
        let ledger = SharedLedger()
        let stage = ConfirmStage(amounts: configuration.amounts, unavailableServices: configuration.unavailableServices)
        worker = StageWorker(
            name: "confirm worker",
            configuration: StageWorker.Configuration(
                kafka: configuration.kafka, topics: configuration.topics, groupID: configuration.groupID,
                input: configuration.topics.resolved, sessionTimeout: configuration.sessionTimeout),
            logger: logger,
            followers: { reject in
                [
                    try ledger.follower(
                        configuration: configuration.kafka, topic: configuration.topics.ledger, logger: logger,
                        reject: reject)
                ]
            },
            process: { message in
                let snapshot = ledger.withLock { $0 }
                return stage.process(key: message.keyString, value: message.value, ledger: snapshot)
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
