public import Confirmation
import Intents
import Kafka
public import Logging
import Payments
import PipelineTopics
public import ServiceLifecycle
import Synchronization

/// The confirm stage as a worker: resolved intents in; messaging intents to
/// the handle stage; financial ones to the payments stage and then (once the
/// broker has them) a confirmation request to the voice service; what cannot
/// be done to the responses. Reads the ledger (accounts, balances, payment
/// requests) as a global table; the payments stage checks again when it reserves.
public struct ConfirmWorker: Service {
    public typealias Configuration = StageConfiguration<ConfirmStage>

    private let worker: StageWorker

    public init(configuration: Configuration, logger: Logger) {
        let ledger = SharedLedger()
        let stage = configuration.stage
        worker = StageWorker(
            name: "confirm worker",
            configuration: configuration.worker(input: configuration.topics.resolved),
            logger: logger,
            followers: { reject in
                [
                    try ledger.follower(
                        configuration: configuration.kafka, topic: configuration.topics.ledger,
                        keys: configuration.keys, logger: logger, reject: reject)
                ]
            },
            process: { message in
                // Decide under the lock: a copy taken out of it would make the follower's next
                // write duplicate the whole ledger (copy on write), once per record.
                ledger.withLock {
                    stage.process(
                        key: message.keyString, value: message.value, signature: message.signature, ledger: $0)
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
