import Foundation

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
/// (SIGCONT). Never set in production.
enum StallPoint {
    private static let stall = FaultSwitch("INTENT_STALL_BEFORE_LEDGER_ROUND")

    static func beforeStateRound() {
        guard let (at, count) = stall.reach(), count == at else { return }
        FileHandle.standardError.write(Data("stall point: stopping before ledger round \(count)\n".utf8))
        kill(getpid(), SIGSTOP)
    }
}
