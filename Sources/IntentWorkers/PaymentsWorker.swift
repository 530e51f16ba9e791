import IntentEvents
import Kafka
public import Logging
public import Payments
import PipelineTopics
public import ServiceLifecycle
import Synchronization

/// The payments stage as a worker, the only place money moves: confirmed
/// financial intents and the users' signed answers in (one topic, keyed by
/// user, so each user's proposals and answers arrive in order at one member);
/// ledger events, confirmation requests and responses out. The ledger topic
/// is the state: read in full at start, followed while running, and written
/// before anything else a decision publishes. A sweep every second releases
/// the expired holds of the users this member owns.
public struct PaymentsWorker: Service {
    public typealias Configuration = StageConfiguration<PaymentsStage>

    private let worker: StageWorker

    public init(configuration: Configuration, logger: Logger) {
        let ledger = SharedLedger()
        let stage = configuration.stage
        worker = StageWorker(
            name: "payments worker",
            configuration: configuration.worker(input: configuration.topics.confirmations),
            logger: logger,
            followers: { reject in
                [
                    try ledger.follower(
                        configuration: configuration.kafka, topic: configuration.topics.ledger,
                        keys: configuration.keys, logger: logger, reject: reject)
                ]
            },
            tick: { owns in ledger.withLock { stage.sweep(ledger: &$0, owns: owns) } },
            moneyMoved: { ledger.withLock { $0.movements.take() } },
            process: { message in
                let signature = message.signature
                return ledger.withLock {
                    stage.process(key: message.keyString, value: message.value, signature: signature, ledger: &$0)
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
