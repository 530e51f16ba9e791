public import IntentWorkers
public import Kafka
public import PipelineTopics

/// The process-level tests' faults, chosen by the environment the test starts the
/// fault host with: ``CrashPoint`` (`INTENT_CRASH_BETWEEN_ROUNDS`) and ``StallPoint``
/// (`INTENT_STALL_BEFORE_LEDGER_ROUND`). Only `intent-fault-host` reads these
/// variables; the production executables run their workers without hooks.
public struct EnvironmentFaults: StageHostHooks {
    private let crash: CrashPoint
    private let stall: StallPoint

    public init(environment: [String: String]) {
        crash = CrashPoint(environment: environment)
        stall = StallPoint(environment: environment)
    }

    public func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics) {
        stall.beforeStateRound(records, topics: topics)
    }

    public func betweenPublishRounds() { crash.betweenPublishRounds() }

    public func stateRoundDelivered() throws(KafkaError) {}
}
