import Foundation
import IntentEvents
import Intents
import Kafka
public import Logging
public import Messaging
public import ServiceLifecycle
import Synchronization

/// The handle stage for messaging as a worker: confirmed messaging intents
/// in; message events and responses out. The messages topic is its state,
/// co-partitioned with the input (keyed by the sender): each instance reads
/// and follows only the partitions it owns; a tick each second delivers what
/// slow services queued and completes those intents.
public struct HandleWorker: Service {
    public typealias Configuration = StageConfiguration<HandleStage>

    private let worker: StageWorker

    /// - Parameter hooks: Fault injection by a test host (``StageHostHooks``); production passes none.
    public init(configuration: Configuration, logger: Logger, hooks: any StageHostHooks = NoStageHostHooks()) {
        let history = PartitionedState { MessageHistory() }
        var stage = configuration.stage
        stage.freshness = .stageEvents
        // What each owned partition's confirmed intents were acted on (replays answer nothing again),
        // read back from the partition when this member gains it (``ReplayMemory``).
        let seen = PartitionedState<ReplayGuard?> { ReplayGuard() }
        worker = StageWorker(
            name: "handle worker",
            configuration: configuration.worker(input: configuration.topics.confirmed, source: PipelineSource.handle),
            logger: logger,
            followers: { reject in
                [
                    try TopicFollower(
                        configuration: configuration.kafka, topic: configuration.topics.messages, logger: logger,
                        apply: { message throws(EventDecodingError) in
                            let envelope = try IncomingEvent.decodeIntent(
                                key: message.keyString, value: message.value, type: MessageEvent.type
                            ).envelope
                            try configuration.keys.verify(
                                envelope, received: message.value, signature: message.signature,
                                producedBy: .only(PipelineSource.handle))
                            let event = try envelope.decodeData(as: MessageEvent.self)
                            history.withValue(in: message.partition) { $0.apply(event) }
                        }, reject: reject, forget: history.forget, retry: configuration.retry)
                ]
            },
            tick: { [stage] owns in .merged(history.withEachValue { stage.tick(history: &$0, owns: owns) }) },
            replayMemory: .guards(seen) { [stage] message, seen in
                stage.input.remember(
                    key: message.keyString, value: message.value, signature: message.signature, now: Date(),
                    seen: &seen)
            },
            hooks: hooks,
            process: { [stage] message in
                seen.withValue(in: message.partition) { seen in
                    history.withValue(in: message.partition) {
                        stage.process(
                            key: message.keyString, value: message.value, signature: message.signature, history: &$0,
                            seen: &seen)
                    }
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
