import Foundation

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
/// Never set in production.
enum CrashPoint {
    private static let crash = FaultSwitch("INTENT_CRASH_BETWEEN_ROUNDS")

    /// Called between the state round and the notices round of one publish.
    static func betweenPublishRounds() {
        guard let (after, count) = crash.reach(), count > after else { return }
        FileHandle.standardError.write(
            Data("crash point: exiting between publish rounds (round \(count - 1))\n".utf8))
        _exit(137)
    }
}
