import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection for the crash test: a worker started with
/// `INTENT_CRASH_BETWEEN_ROUNDS=N` dies, as abruptly as under SIGKILL (no
/// flush, no commit), right after the Nth time it made state durable and
/// before it published the notices that report it: the one moment where a
/// redo must produce exactly what the first attempt already made durable.
/// Unset, it costs one relaxed atomic load per batch. Never set in production.
enum CrashPoint {
    private static let after: Int? = ProcessInfo.processInfo.environment["INTENT_CRASH_BETWEEN_ROUNDS"].flatMap(
        Int.init)
    private static let rounds = Atomic<Int>(0)

    /// Called between the state round and the notices round of one publish.
    static func betweenPublishRounds() {
        guard let after else { return }
        let (round, _) = rounds.add(1, ordering: .relaxed)
        guard round >= after else { return }
        FileHandle.standardError.write(Data("crash point: exiting between publish rounds (round \(round))\n".utf8))
        _exit(137)
    }
}
