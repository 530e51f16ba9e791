import IntentEvents
import Kafka
public import Logging
public import Messaging
public import ServiceLifecycle
import Synchronization

/// The handle stage for messaging as a worker: confirmed messaging intents
/// in; message events and responses out. The messages topic is its state,
/// read in full at start and followed while running; a tick each second
/// delivers what slow services queued and completes those intents.
public struct HandleWorker: Service {
    public typealias Configuration = StageConfiguration<HandleStage>

    private let worker: StageWorker

    public init(configuration: Configuration, logger: Logger) {
        let history = Mutex(MessageHistory())
        let stage = configuration.stage
        worker = StageWorker(
            name: "handle worker",
            configuration: configuration.worker(input: configuration.topics.confirmed),
            logger: logger,
            followers: { reject in
                [
                    try TopicFollower(
                        configuration: configuration.kafka, topic: configuration.topics.messages, logger: logger,
                        apply: { message throws(EventDecodingError) in
                            let envelope = try IncomingEvent.decodeIntent(
                                key: message.keyString, value: message.value, types: [MessageEvent.type]
                            ).envelope
                            try configuration.keys.verify(
                                envelope, received: message.value, signature: message.signature,
                                producedBy: .only(PipelineSource.handle))
                            let event = try envelope.decodeData(as: MessageEvent.self)
                            history.withLock { $0.apply(event) }
                        }, reject: reject)
                ]
            },
            tick: { owns in history.withLock { stage.tick(history: &$0, owns: owns) } },
            process: { message in
                history.withLock {
                    stage.process(
                        key: message.keyString, value: message.value, signature: message.signature, history: &$0)
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
