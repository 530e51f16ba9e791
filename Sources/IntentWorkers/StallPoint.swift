import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection for the fencing test: a payments worker started with
/// `INTENT_STALL_BEFORE_LEDGER_ROUND=N` stops itself (SIGSTOP, as a paused
/// container or a long garbage-collection pause would stop it) just before it
/// hands its Nth state round with ledger records to the producer: decided, not yet
/// written. The test lets another member take its partitions over, then resumes it
/// (SIGCONT). Unset, it costs one relaxed atomic load per such round. Never set in production.
enum StallPoint {
    private static let at: Int? = ProcessInfo.processInfo.environment["INTENT_STALL_BEFORE_LEDGER_ROUND"].flatMap(
        Int.init)
    private static let rounds = Atomic<Int>(0)

    static func beforeStateRound() {
        guard let at else { return }
        let (_, round) = rounds.add(1, ordering: .relaxed)
        guard round == at else { return }
        FileHandle.standardError.write(Data("stall point: stopping before ledger round \(round)\n".utf8))
        kill(getpid(), SIGSTOP)
    }
}
