import Foundation
import Kafka
import PipelineTopics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection for the fencing test: a payments worker run by the fault host with
/// `INTENT_STALL_BEFORE_LEDGER_ROUND=N` stops itself (SIGSTOP, as a paused
/// container or a long garbage-collection pause would stop it) just before it
/// hands its Nth state round with ledger records to the producer: decided, not yet
/// written. The test lets another member take its partitions over, then resumes it
/// (SIGCONT).
struct StallPoint: Sendable {
    static let variable = "INTENT_STALL_BEFORE_LEDGER_ROUND"
    private let stall: FaultSwitch

    init(environment: [String: String]) { stall = FaultSwitch(Self.variable, environment: environment) }

    func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics) {
        guard stall.isOn, records.contains(where: { $0.topic == topics.ledger }),
            let (at, count) = stall.reach(), count == at
        else { return }
        FileHandle.standardError.write(Data("stall point: stopping before ledger round \(count)\n".utf8))
        kill(getpid(), SIGSTOP)
    }
}
