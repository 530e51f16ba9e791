public import Confirmation
import Foundation
import IntentEvents
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
/// be done to the responses, but a payment refused, which goes to the payments
/// stage to be recorded. Reads the ledger partitions of the input
/// partitions it owns (the users' balances and the requests they were sent)
/// and the accounts directory whole, by their view signatures (``RecordTrust``):
/// the payments stage checks again, by their signatures, when it reserves, so
/// this worker holds no key that could forge a ledger or accounts record.
public struct ConfirmWorker: Service {
    public typealias Configuration = StageConfiguration<ConfirmStage>

    private let worker: StageWorker

    /// - Parameter hooks: Fault injection by a test host (``StageHostHooks``); production passes none.
    public init(configuration: Configuration, logger: Logger, hooks: any StageHostHooks = NoStageHostHooks()) {
        let state = PaymentsState(idempotencyHorizon: configuration.idempotencyHorizon)
        var stage = configuration.stage
        stage.freshness = .stageEvents
        // What each owned partition's resolved intents were acted on (replays ask nothing again),
        // read back from the partition when this member gains it (``ReplayMemory``).
        let seen = PartitionedState<ReplayGuard?> { ReplayGuard() }
        worker = StageWorker(
            name: "confirm worker",
            configuration: configuration.worker(input: configuration.topics.resolved, source: PipelineSource.confirm),
            logger: logger,
            followers: { reject in
                try state.followers(configuration, writesSnapshots: false, trust: .view, logger: logger, reject: reject)
            },
            replayMemory: .guards(seen) { [stage] message, seen in
                stage.input.remember(
                    key: message.keyString, value: message.value, signature: message.signature, now: Date(),
                    seen: &seen)
            },
            hooks: hooks,
            process: { [stage] message in
                seen.withValue(in: message.partition) { seen in
                    state.withLedger(in: message.partition) { ledger, directory in
                        stage.process(
                            key: message.keyString, value: message.value, signature: message.signature, ledger: ledger,
                            directory: directory, seen: &seen)
                    }
                }
            })
    }

    public func run() async throws {
        try await worker.run()
    }
}
