import Foundation
import IntentEvents
public import IntentWorkers
public import Kafka
import Payments
public import PipelineTopics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process-level tests' faults, chosen by the environment the test starts the
/// fault host (`intent-fault-host`) with; the production executables run their workers
/// without hooks and read none of these variables.
///
/// - `INTENT_CRASH_BETWEEN_ROUNDS=N` (the crash test): the worker dies, as abruptly as
///   under SIGKILL (no flush, no commit), right after the Nth time it made state durable
///   and before it published the notices that report it: the one moment where a redo
///   must produce exactly what the first attempt already made durable, and one no signal
///   from outside can hit.
/// - `INTENT_STALL_BEFORE_LEDGER_POST=N` (the fencing test): a payments worker stops
///   itself (SIGSTOP, as a paused container or a long pause would stop it) just before
///   it hands the Nth state round holding a ledger `post` to the producer: decided, not
///   yet written. The test lets another member take its partitions over, then resumes it.
///   Rounds are chosen by what they hold, not counted: under load the worker decides a
///   payment's hold and its post in one batch, and a count (once "round 2") then stopped
///   it before the payee's credit instead, with the post already written and answered.
public struct EnvironmentFaults: StageHostHooks {
    private let crash: FaultSwitch
    private let stall: FaultSwitch

    public init(environment: [String: String]) {
        crash = FaultSwitch("INTENT_CRASH_BETWEEN_ROUNDS", environment: environment)
        stall = FaultSwitch("INTENT_STALL_BEFORE_LEDGER_POST", environment: environment)
    }

    public func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics) {
        guard stall.isOn else { return }
        let kinds = records.filter { $0.topic == topics.ledger }.compactMap { record in
            (try? EventEnvelope.decode(record.value ?? []))
                .flatMap { try? $0.decodeData(as: LedgerEvent.self) }?.kind
        }
        guard kinds.contains(.post), let (at, count) = stall.reach(), count == at else { return }
        let round = kinds.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(
            Data("stall point: stopping before ledger round with post \(count) (\(round))\n".utf8))
        kill(getpid(), SIGSTOP)
    }

    public func betweenPublishRounds() {
        guard let (after, count) = crash.reach(), count > after else { return }
        FileHandle.standardError.write(
            Data("crash point: exiting between publish rounds (round \(count - 1))\n".utf8))
        _exit(137)
    }

    public func stateRoundDelivered() throws(KafkaError) {}
}
