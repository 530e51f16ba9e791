import IntentEvents
import IntentResolution
import Intents
import Kafka
public import Logging
public import Payments
import PipelineTopics
public import ServiceLifecycle
import Synchronization

/// The payments stage as a worker, the only place money moves: confirmed
/// financial intents, the users' signed answers and other members' effects
/// in (one topic, keyed by user, so each user's proposals and answers arrive
/// in order at one member); ledger events, effects for other users,
/// confirmation requests and responses out. The ledger topic is the state,
/// co-partitioned with the input: each member restores and follows only the
/// ledger partitions of the input partitions it owns, and writes ledger
/// events only for its own users (a payee's credit goes to the payee's
/// member as an effect). A sweep every second releases the expired holds of
/// the users this member owns.
public struct PaymentsWorker: Service {
    public typealias Configuration = StageConfiguration<PaymentsStage>

    private let worker: StageWorker

    /// - Parameter hooks: Fault injection by a test host (``StageHostHooks``); production passes none.
    public init(configuration: Configuration, logger: Logger, hooks: any StageHostHooks = NoStageHostHooks()) {
        let state = PaymentsState(idempotencyHorizon: configuration.idempotencyHorizon)
        // The users' voice services, by input partition (co-partitioned with the settings topic).
        let settings = PartitionedState { UserSettingsDirectory() }
        let stage = configuration.stage
        // What each owned partition's proposals were acted on (replays answer nothing again),
        // read back from the partition when this member gains it (``ReplayMemory``).
        let seen = PartitionedState<ReplayGuard?> { ReplayGuard() }
        worker = StageWorker(
            name: "payments worker",
            configuration: configuration.worker(
                input: configuration.topics.confirmations, source: PipelineSource.payments),
            logger: logger,
            followers: { reject in
                var followers = try state.followers(
                    configuration, writesSnapshots: true, trust: .signature, readsBack: true, logger: logger,
                    reject: reject)
                if let voiceServices = configuration.voiceServices {
                    // Read, never parked here: the resolve worker dead-letters what it refuses.
                    followers.append(
                        try TopicFollower.settings(
                            configuration: configuration.kafka, topic: configuration.topics.settings,
                            authenticator: voiceServices.keys, into: settings,
                            metrics: configuration.telemetry.metrics, logger: logger, retry: configuration.retry,
                            reject: { _, _ in }))
                }
                return followers
            },
            // A partition another member has claimed since is not swept: the loop stops first.
            tick: { owns in
                .merged(state.withEachLedger { $0.isFenced ? StageResult() : stage.sweep(ledger: &$0, owns: owns) })
            },
            moneyMoved: { .merged(state.withEachLedger { $0.movements.take() }) },
            ownership: state.ownership(ledgerTopic: configuration.topics.ledger),
            replayMemory: .guards(seen) { message, seen in
                stage.remember(
                    key: message.keyString, value: message.value, signature: message.signature,
                    horizon: configuration.idempotencyHorizon, seen: &seen)
            },
            hooks: hooks,
            process: { message in
                let signature = message.signature
                return seen.withValue(in: message.partition) { seen in
                    state.withLedger(in: message.partition) { ledger, directory in
                        // Decided nothing: the loop finds the partition fenced and stops.
                        guard !ledger.isFenced else { return .ignored("partition claimed by another member") }
                        return stage.process(
                            key: message.keyString, value: message.value, signature: signature, ledger: &ledger,
                            directory: directory, seen: &seen
                        ) { user, source in
                            configuration.voiceServices.map { voiceServices in
                                voiceServices.admits(
                                    source,
                                    settings: settings.withValue(in: message.partition) { $0.settings(of: user) })
                            } ?? true
                        }
                    }
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
